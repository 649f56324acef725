// Three projects: `unit`, the pure rules (no PostgreSQL, broker or Temporal: they run in seconds, `npm run
// test:unit`), `stack`, every other suite, against the real infrastructure the global setup starts, and
// `journeys`, user journeys over HTTP against the whole stack as `npm start` starts it (the suite starts
// it itself: no global setup), and `topology`'s two API and two worker processes started the same way. A
// project's global setup runs only when one of its suites is selected.

/** Suites that need no global setup; every other suite is a stack suite. */
const unitSuites = [
  'domain',
  'pricing-engine',
  'pricing-benefits',
  // Starts its own in-process aedes broker.
  'devices',
  'booking-availability-rules',
  'fleet-rules',
  'geography-rules',
  'rental-requirements-rules',
  'maintenance-rules',
  'voucherables-rules',
  'subscription-rules',
  'mds-rules',
  // Replays tests/histories in-process: a replay worker needs no Temporal server.
  'replay',
  'workflow-bundle',
  // An express app of its own on a free port.
  'validator-speedups',
  'background-work',
];

const shared = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true }],
  },
  // Registers the whole error catalogue, as the API and the worker do.
  setupFiles: ['<rootDir>/tests/support/error-catalogue.ts'],
};

/** @type {import('jest').Config} */
export default {
  testTimeout: 60000,
  testSequencer: '<rootDir>/tests/support/sequencer.mjs',
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: unitSuites.map((name) => `<rootDir>/tests/${name}.test.ts`),
    },
    {
      ...shared,
      displayName: 'stack',
      testMatch: ['<rootDir>/tests/**/*.test.ts'],
      testPathIgnorePatterns: [
        '/node_modules/',
        ...unitSuites.map((name) => `/tests/${name}\\.test\\.ts$`),
        '/tests/journeys\\.test\\.ts$',
        '/tests/topology\\.test\\.ts$',
      ],
      globalSetup: '<rootDir>/tests/support/global-setup.mjs',
      globalTeardown: '<rootDir>/tests/support/global-teardown.mjs',
    },
    {
      ...shared,
      displayName: 'journeys',
      testMatch: ['<rootDir>/tests/journeys.test.ts', '<rootDir>/tests/topology.test.ts'],
    },
  ],
};
