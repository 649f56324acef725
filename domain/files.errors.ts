// Error codes of the files domain: uploads to the object store, links to entities, pre-signed downloads and
// the file-access codes (A103, A105-A108 with their sub-codes appended without a dot: A105403).
// Pure data, registered in the catalogue when imported (a code declared twice fails at start); the
// registration (composition/domains) lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The files domain's catalogue entries; `when` says when the project answers a code. */
export const fileErrors = defineErrorCodes(
  'files',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Issues, fines, files
    'L303': { code: 'L303', meaning: 'upload failed', retryable: true, httpStatus: 500, source: 'spec', when: 'the object store refused or did not answer while the file was stored (retry the upload)' },
    'L404': { code: 'L404', meaning: 'file not found', retryable: false, httpStatus: 404, source: 'spec', when: 'a file uuid that does not exist in the tenant (or, for a customer, that is not theirs to link)' },
    'L405': { code: 'L405', meaning: 'file size at most 2 MB', retryable: false, httpStatus: 413, source: 'spec', when: 'an upload whose file part exceeds 2 MiB (2,097,152 bytes), or an empty one' },
    'L406': { code: 'L406', meaning: 'content type required', retryable: false, httpStatus: 400, source: 'spec', when: 'an upload whose file part carries no Content-Type (or an unusable one)' },
    'L407': { code: 'L407', meaning: 'file already linked', retryable: false, httpStatus: 409, source: 'spec', when: 'linking a file to an entity it is already linked to (or naming it twice in one request)' },
    'L408': { code: 'L408', meaning: 'entity type not found', retryable: false, httpStatus: 404, source: 'spec', when: 'linking to an entity type files cannot be linked to' },
    // Access control
    'A103': { code: 'A103', meaning: 'file access', retryable: false, httpStatus: 403, source: 'spec', when: 'sub-codes: A103403 an operator may see no entity the file is linked to (nor uploaded it); A103404 the same for a customer' },
    'A105': { code: 'A105', meaning: 'access to files linked to a rental', retryable: false, httpStatus: 403, source: 'spec', when: 'A105403 no RENTAL_READ on the rental\'s branch; A105404 another customer\'s rental; A105410 the rental ended more than an hour ago (no more links)' },
    'A106': { code: 'A106', meaning: 'access to files linked to a vehicle', retryable: false, httpStatus: 403, source: 'spec', when: 'A106403 no VEHICLE_READ (vehicle) or DAMAGE_READ (damage) on its branch; A106404 for a customer' },
    'A107': { code: 'A107', meaning: 'access to files linked to a user', retryable: false, httpStatus: 403, source: 'spec', when: 'A107403 no CUSTOMER_READ on the customer\'s branch; A107404 another customer' },
    'A108': { code: 'A108', meaning: 'access to files linked to an issue', retryable: false, httpStatus: 403, source: 'spec', when: 'A108403 no ISSUE_READ on the issue\'s branch (issues and their comments); A108404 for a customer' },
  },
  {
    A103403: 'the file is linked to nothing the caller may read, and the caller did not upload it',
    A103404: "the file is linked to nothing of the customer's, and the customer did not upload it",
    A105403: 'the caller may not read the rental the file is linked to',
    A105404: "the file is linked to another customer's rental",
    A105410: 'the rental ended more than an hour ago: files can no longer be linked to it',
    A106403: 'the caller may not read the vehicle (or damage) the file is linked to',
    A106404: "the file is linked to a vehicle or damage that is not the customer's",
    A107403: 'the caller may not read the customer the file is linked to',
    A107404: 'the file is linked to another customer',
    A108403: 'the caller may not read the issue the file is linked to',
    A108404: "the file is linked to an issue that is not the customer's",
  },
);

declare module './errors.js' {
  interface ErrorTables {
    files: typeof fileErrors;
  }
}
