// Error codes of the geography domain: branches, business units, areas and geofences, stations, physical stations, POIs.
// Pure data, registered in the catalogue when imported (a code declared twice fails at start); the
// registration (composition/domains) lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The geography domain's catalogue entries; `when` says when the project answers a code. */
export const geographyErrors = defineErrorCodes(
  'geography',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Project-defined: entities and rental/vehicle operations
    'B404': { code: 'B404', meaning: 'branch not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown branchId' },
    'B405': { code: 'B405', meaning: 'business unit not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown businessUnitId' },
    // Project-defined: geography (branches, business units, areas, stations, POIs)
    'B100': { code: 'B100', meaning: 'branch code exists', retryable: false, httpStatus: 409, source: 'project', when: 'create or rename a branch with a code another branch has' },
    'B101': { code: 'B101', meaning: 'invalid branch parent (unknown, itself or one of its descendants)', retryable: false, httpStatus: 422, source: 'project', when: 'PUT /branches/{id} moving a branch below itself, to an unknown parent, or to no parent' },
    'B102': { code: 'B102', meaning: 'business unit is referenced (branches, customers or other records) and cannot be deleted', retryable: false, httpStatus: 409, source: 'project', when: 'DELETE /business-units/{id} while branches, customers or other records reference it' },
    'B103': { code: 'B103', meaning: 'business unit code exists', retryable: false, httpStatus: 409, source: 'project', when: 'create or rename a business unit with a taken code' },
    'B104': { code: 'B104', meaning: 'a branch cannot be compatible with itself', retryable: false, httpStatus: 422, source: 'project', when: 'PUT /branches/{id}/compatible-branches listing the branch itself' },
    'B105': { code: 'B105', meaning: 'unknown time zone (an IANA name such as Europe/Berlin is needed)', retryable: false, httpStatus: 422, source: 'project', when: 'a branch or business unit with a time zone Intl does not know' },
    'GF100': { code: 'GF100', meaning: 'invalid geofence (GeoJSON MultiPolygon with closed, non-crossing rings of [lng, lat] positions required)', retryable: false, httpStatus: 422, source: 'project', when: 'open ring, too few positions, malformed or out-of-range positions, self-intersection; a POI latitude out of range' },
    'AREA404': { code: 'AREA404', meaning: 'area not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown area id' },
    'AREA100': { code: 'AREA100', meaning: 'policy type not allowed by the area type', retryable: false, httpStatus: 422, source: 'project', when: 'an area policy its type\'s policyTypes do not list' },
    'AREA101': { code: 'AREA101', meaning: 'invalid area policy (limits, schedule or duplicate policy type)', retryable: false, httpStatus: 422, source: 'project', when: 'a policy type twice, a capacity policy without limit, a category listed twice' },
    'AT404': { code: 'AT404', meaning: 'area type not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown area type id' },
    'AT409': { code: 'AT409', meaning: 'area type is used by areas and cannot be deleted', retryable: false, httpStatus: 409, source: 'project', when: 'DELETE /areatypes/{id} while areas use it' },
    'AT410': { code: 'AT410', meaning: 'area type is read-only', retryable: false, httpStatus: 409, source: 'project', when: 'changing or deleting a system (readOnly) area type' },
    'AT411': { code: 'AT411', meaning: 'policy types still used by areas of this type cannot be removed', retryable: false, httpStatus: 409, source: 'project', when: 'PUT or PATCH /areatypes/{id} dropping a policy type its areas use' },
    'STN404': { code: 'STN404', meaning: 'station not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown station id' },
    'STN100': { code: 'STN100', meaning: 'a station needs a radius or an area', retryable: false, httpStatus: 422, source: 'project', when: 'station without radius and area' },
    'PS404': { code: 'PS404', meaning: 'physical station not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown physical station id' },
    'PS405': { code: 'PS405', meaning: 'physical station slot not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown slot id at that station' },
    'PS406': { code: 'PS406', meaning: 'physical station has no parking area (yet)', retryable: false, httpStatus: 409, source: 'project', when: 'parking-area read or change before one exists: a state of the station, not a missing address (a station without one is valid)' },
    'PS100': { code: 'PS100', meaning: 'slot is not vacant', retryable: false, httpStatus: 409, source: 'project', when: 'connect-vehicle on an OCCUPIED or OUT_OF_ORDER slot' },
    'PS102': { code: 'PS102', meaning: 'slot number exists at this station', retryable: false, httpStatus: 409, source: 'project', when: 'create or renumber a slot to a taken number' },
    'PS103': { code: 'PS103', meaning: 'slot holds a vehicle; disconnect it first', retryable: false, httpStatus: 409, source: 'project', when: 'state change or delete of an occupied slot' },
    'PS104': { code: 'PS104', meaning: 'physical station already has a parking area', retryable: false, httpStatus: 409, source: 'project', when: 'second POST of a parking area' },
    'PS105': { code: 'PS105', meaning: 'the vehicle belongs to another branch than the station', retryable: false, httpStatus: 422, source: 'project', when: 'connect-vehicle with a vehicle of another branch' },
    'PS106': { code: 'PS106', meaning: 'reserved places exceed the parking area capacity', retryable: false, httpStatus: 422, source: 'project', when: 'reservedCount above capacity' },
    'PS107': { code: 'PS107', meaning: 'the slot holds no such vehicle', retryable: false, httpStatus: 409, source: 'project', when: 'disconnect-vehicle on an empty slot or naming another vehicle' },
    'POI404': { code: 'POI404', meaning: 'point of interest not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown POI id (app: also disabled or hidden POIs)' },
    'POC404': { code: 'POC404', meaning: 'POI category not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown POI category id' },
    'POI100': { code: 'POI100', meaning: 'the POI category named in the body does not exist', retryable: false, httpStatus: 422, source: 'project', when: 'POST /pois or PUT/PATCH of a POI with an unknown `categoryId` (a missing path resource stays 404)' },
    'POC409': { code: 'POC409', meaning: 'POI category is used by POIs; set enabled=false instead', retryable: false, httpStatus: 409, source: 'project', when: 'DELETE /categories/{id} while POIs use it' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    geography: typeof geographyErrors;
  }
}
