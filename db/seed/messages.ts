// Demo and test data of the messages domain: the demo app's texts in English and German, one Swiss German
// text (so `de-CH` shows the fallback: its own text where it has one, German elsewhere), and keys only in
// English (so German falls back to the default language).
import type { EntityManager } from '@mikro-orm/postgresql';
import { LocalizedMessage } from '../entities/LocalizedMessage.js';
import { fromBoard, type DomainSeed, type SeedBoard } from './board.js';

/** Who the seed's texts were written by. */
const SEED_AUTHOR = 'system:seed';

/** The demo texts: key → text per locale. */
export const demoMessages: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'app.welcome.title': {
    en: 'Welcome to Demo Mobility',
    de: 'Willkommen bei Demo Mobility',
    'de-CH': 'Grüezi bei Demo Mobility',
  },
  'app.welcome.subtitle': {
    en: 'Scooters, bikes and cars around the corner',
    de: 'Roller, Räder und Autos um die Ecke',
  },
  'app.map.searchPlaceholder': { en: 'Search for an address', de: 'Adresse suchen' },
  'app.rental.start': { en: 'Start ride', de: 'Fahrt starten' },
  'app.rental.end': { en: 'End ride', de: 'Fahrt beenden' },
  'app.vehicle.batteryLow': { en: 'Battery low', de: 'Akku schwach' },
  'app.support.hours': { en: 'Support: Mon–Fri, 8:00–20:00' },
  'error.R102': { en: 'You already have an active ride.', de: 'Du hast bereits eine aktive Fahrt.' },
  'error.P104': {
    en: 'Add a payment method or buy a package first.',
    de: 'Füge zuerst ein Zahlungsmittel hinzu oder kaufe ein Paket.',
  },
};

/** The demo texts of the tenant's app. */
export const messageSeed: DomainSeed = {
  rows(tx: EntityManager, board: SeedBoard) {
    const tenant = fromBoard(board, 'tenant');
    for (const [key, texts] of Object.entries(demoMessages))
      for (const [locale, text] of Object.entries(texts))
        tx.create(LocalizedMessage, { tenant, key, locale, text, updatedBy: SEED_AUTHOR });
  },
};
