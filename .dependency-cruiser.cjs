// The house's layers, written down once: each folder imports only the layers listed beside it (its own
// included). `npm run lint` checks every import against them (docs/architecture.md, "Layers").
//
// Bottom to top:
//   domain        pure rules, safe in workflows: no I/O, no Node built-ins
//   platform      infrastructure: configuration, logs, metrics, mail, SMS, embedded servers
//   devices       the MQTT protocol, the command client and the simulator
//   db            entities, migrations, seeds and the queries and writes of every domain
//   contracts     workflows/*.messages.ts, search attributes, process kinds: how a workflow is called
//   activities    the workflows' side effects, one factory per domain
//   workflows     the workflow code (bundled apart): activities as types only
//   api, workers  the HTTP application and the worker process, given the domains' contents as arguments
//   composition   the domain list and what assembles the ORM, the app and the worker from it; entry points
//   scripts, bench, tests: anything
const contracts = '^workflows/(?:[^/]+\\.messages|search-attributes|process-kind)\\.ts$';
const workflowCode = `^workflows/(?!(?:[^/]+\\.messages|search-attributes|process-kind)\\.ts$)`;

/** Layer name → [what its files match, the layers it may import]. */
const layers = {
  domain: ['^domain/', ['domain']],
  platform: ['^platform/', ['domain', 'platform']],
  devices: ['^devices/', ['domain', 'platform', 'devices']],
  db: ['^db/', ['domain', 'platform', 'db']],
  contracts: [contracts, ['domain', 'contracts']],
  activities: ['^activities/', ['domain', 'platform', 'devices', 'db', 'contracts', 'activities']],
  workflows: [workflowCode, ['domain', 'contracts', 'workflows', 'activities']],
  api: ['^api/', ['domain', 'platform', 'devices', 'db', 'contracts', 'activities', 'api']],
  workers: ['^workers/', ['domain', 'platform', 'devices', 'db', 'contracts', 'activities', 'workers']],
  composition: [
    '^composition/',
    [
      'domain',
      'platform',
      'devices',
      'db',
      'contracts',
      'activities',
      'workflows',
      'api',
      'workers',
      'composition',
    ],
  ],
};

const everyLayer = Object.values(layers).map(([path]) => `(?:${path})`);
const layerRules = Object.entries(layers).map(([name, [path, allowed]]) => ({
  name: `layer-${name}`,
  comment: `${name} imports only ${allowed.join(', ')}`,
  severity: 'error',
  from: { path },
  to: {
    path: [...everyLayer, '^(?:scripts|bench|tests)/'].join('|'),
    pathNot: allowed.map((layer) => `(?:${layers[layer][0]})`).join('|'),
  },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'workflows-take-activities-as-types',
      comment:
        'workflow code is bundled apart and must stay deterministic: it imports activities only as types',
      severity: 'error',
      from: { path: workflowCode },
      to: { path: '^activities/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'pure-layers-use-no-node-built-ins',
      comment: 'domain rules and workflow code run inside workflows: no Node built-ins',
      severity: 'error',
      from: { path: `^domain/|${workflowCode}|${contracts}` },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'interfaces-share-through-api-shared',
      comment:
        'the operator and app interfaces share representations and commands through api/shared, never each other',
      severity: 'error',
      from: { path: '^api/routes/(back|front)/' },
      to: { path: '^api/routes/(back|front)/', pathNot: '^api/routes/$1/' },
    },
    {
      name: 'api-shared-serves-the-routes',
      comment: 'api/shared is below the route files that use it',
      severity: 'error',
      from: { path: '^api/shared/' },
      to: { path: '^api/routes/(back|front|auth)/' },
    },
    {
      name: 'no-circles-but-the-entities',
      comment: "only the ORM entities' mutual relations may form a circle",
      severity: 'error',
      from: { pathNot: '^db/entities/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(?:node_modules|\\.data|coverage)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] },
  },
};
