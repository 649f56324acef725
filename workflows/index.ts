// Bundle entry of the worker: every workflow the task queue runs.
export { rentalWorkflow } from './rental.js';
