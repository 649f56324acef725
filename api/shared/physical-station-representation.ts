// The physical station representation, which both interfaces use: the `PhysicalStation` schema (with the
// localized texts, images and app icons the operator writes and apps show) and its mapper.
import { Type, type Static } from '@sinclair/typebox';
import { PhysicalStation, physicalStationStates } from '../../db/entities/PhysicalStation.js';
import { PhysicalStationSlot } from '../../db/entities/PhysicalStationSlot.js';
import type { EntityManager } from '../../db/orm.js';
import { component, Id, Nullable, Position, Str, StringEnum, Dictionary } from '../kernel/schemas.js';

export const PhysicalStationState = component('PhysicalStationState', StringEnum(physicalStationStates));
export const LocalizedText = Dictionary(Str(16, { pattern: '^[a-z]{2}(-[A-Z]{2})?$' }), Str(4000), {
  maxProperties: 30,
  additionalProperties: false,
  description: 'Language tag (en, de, de-CH) → text.',
});
export const ImageSchema = Type.Object(
  {
    key: Str(64, { pattern: '^(icon|mainImage|detailsImage_[0-9]{1,2})$' }),
    url: Str(1000, { format: 'uri' }),
  },
  { additionalProperties: false },
);
export const AppIcons = Dictionary(
  Str(32, { pattern: '^[A-Za-z][A-Za-z0-9_]*$' }),
  Str(1000, { format: 'uri' }),
  {
    maxProperties: 20,
    additionalProperties: false,
    description: 'Icon overrides for apps: role (vehicle, parking, …) → URL.',
  },
);

export const PhysicalStationSchema = component(
  'PhysicalStation',
  Type.Object(
    {
      id: Id(),
      branchId: Id(),
      name: Type.String(),
      state: PhysicalStationState,
      position: Position,
      address: Nullable(Type.String()),
      description: LocalizedText,
      images: Type.Array(ImageSchema),
      appIcons: Nullable(AppIcons),
      slotCount: Type.Integer(),
      vacantSlotCount: Type.Integer(),
    },
    { additionalProperties: false },
  ),
);

type PhysicalStationDto = Static<typeof PhysicalStationSchema>;

/** The API's physical station representation (back and front). */
export async function toPhysicalStationDto(
  em: EntityManager,
  station: PhysicalStation,
): Promise<PhysicalStationDto> {
  const slots = await em.find(PhysicalStationSlot, { physicalStation: station.id });
  return {
    id: station.id,
    branchId: station.branch.id,
    name: station.name,
    state: station.state,
    position: { lat: station.latitude, lng: station.longitude },
    address: station.address ?? null,
    description: station.description,
    images: station.images as PhysicalStationDto['images'],
    appIcons: station.appIcons ?? null,
    slotCount: slots.length,
    vacantSlotCount: slots.filter((slot) => slot.state === 'VACANT').length,
  };
}
