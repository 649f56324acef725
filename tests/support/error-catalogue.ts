// Every suite runs with the whole error catalogue registered, as the API and the worker do: domain rules
// a test calls directly may throw another domain's codes.
import { errorCatalogue } from '../../composition/registry.js';

errorCatalogue();
