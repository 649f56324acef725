// The point-of-interest representation, which both interfaces use: the `Poi` schema with its GeoJSON point,
// images and display fields, and its mapper.
import { Type, type Static } from '@sinclair/typebox';
import { Poi } from '../../db/entities/Poi.js';
import { component, Id, Int, Nullable, Str, StringEnum, Dictionary } from '../kernel/schemas.js';

export const GeoJsonPoint = component(
  'GeoJsonPoint',
  Type.Object(
    {
      type: StringEnum(['Point'] as const),
      coordinates: Type.Array(Type.Number({ minimum: -180, maximum: 180 }), {
        minItems: 2,
        maxItems: 2,
        description: '[longitude, latitude]; the latitude must lie in [-90, 90] (GF100 otherwise).',
      }),
    },
    { additionalProperties: false, description: 'GeoJSON point, coordinates [longitude, latitude].' },
  ),
);

const Images = Dictionary(
  Str(32, { pattern: '^(icon|mainImage|detailsImage_[A-Za-z0-9]{1,16})$' }),
  Str(1000, { format: 'uri' }),
  {
    maxProperties: 20,
    additionalProperties: false,
    description: 'Image role (icon, mainImage, detailsImage_*) → URL.',
  },
);
export const TranslationKeys = Type.Object(
  { name: Type.Optional(Str(200)), description: Type.Optional(Str(200)) },
  { additionalProperties: false, description: 'Translation keys the apps resolve.' },
);

export const displayFields = {
  displayOnRental: Type.Boolean(),
  enabled: Type.Boolean(),
  mapZoomLevel: Nullable(Int(0, 22)),
  sizeFactor: Nullable(Type.Number({ minimum: 0.1, maximum: 10 })),
  useCustomIcon: Type.Boolean(),
  images: Images,
};

export const PoiSchema = component(
  'Poi',
  Type.Object(
    {
      id: Id(),
      categoryId: Id(),
      branchId: Id(),
      name: Type.String(),
      description: Nullable(Type.String()),
      position: GeoJsonPoint,
      address: Type.String(),
      city: Nullable(Type.String()),
      url: Nullable(Type.String()),
      phoneNumber: Nullable(Type.String()),
      ...displayFields,
      openingInformation: Nullable(Type.String()),
      translationKeys: TranslationKeys,
    },
    { additionalProperties: false },
  ),
);

/** The API's POI representation (back and front). */
export function toPoiDto(poi: Poi): Static<typeof PoiSchema> {
  return {
    id: poi.id,
    categoryId: poi.category.id,
    branchId: poi.branch.id,
    name: poi.name,
    description: poi.description ?? null,
    position: { type: 'Point', coordinates: [poi.longitude, poi.latitude] },
    address: poi.address,
    city: poi.city ?? null,
    url: poi.url ?? null,
    phoneNumber: poi.phoneNumber ?? null,
    displayOnRental: poi.displayOnRental,
    enabled: poi.enabled,
    mapZoomLevel: poi.mapZoomLevel ?? null,
    sizeFactor: poi.sizeFactor ?? null,
    useCustomIcon: poi.useCustomIcon,
    images: poi.images,
    openingInformation: poi.openingInformation ?? null,
    translationKeys: poi.translationKeys as Static<typeof TranslationKeys>,
  };
}
