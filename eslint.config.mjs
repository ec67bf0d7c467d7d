import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

// Which project types may import which. Tests (specs, e2e specs, test/ folders) may also import
// the test kit (type:testing); production source may not.
const layers = {
  // Apps on top, utilities at the bottom.
  'type:app': ['type:feature', 'type:data-access', 'type:util'],
  // The test kit boots whole apps, so it sits above everything else and only tests use it.
  'type:testing': ['type:feature', 'type:data-access', 'type:util'],
  'type:feature': ['type:feature', 'type:data-access', 'type:util'],
  'type:data-access': ['type:data-access', 'type:util'],
  'type:util': ['type:util'],
  // The benchmarks load the built apps; from the libs they take types and constants only.
  'type:bench': ['type:feature', 'type:data-access', 'type:util'],
  // Deployment checks (apps/deploy-e2e) boot built apps as processes; they use the test kit and utilities.
  'type:e2e': ['type:testing', 'type:util'],
};

const boundaries = (forTests) => [
  'error',
  {
    enforceBuildableLibDependency: true,
    allow: [],
    depConstraints: [
      // An app never imports another app; shared code never imports a service.
      { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
      { sourceTag: 'scope:docstore', onlyDependOnLibsWithTags: ['scope:docstore', 'scope:shared'] },
      { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:gateway', 'scope:shared'] },
      { sourceTag: 'scope:ingest-push', onlyDependOnLibsWithTags: ['scope:ingest-push', 'scope:shared'] },
      // The console is a browser app: it talks to the services over HTTP only and imports none of their code
      // (its tests may use the shared test kit).
      { sourceTag: 'scope:console', onlyDependOnLibsWithTags: forTests ? ['scope:console', 'scope:shared'] : ['scope:console'] },
      ...Object.entries(layers).map(([sourceTag, allowed]) => ({
        sourceTag,
        onlyDependOnLibsWithTags: forTests && sourceTag !== 'type:testing' ? [...allowed, 'type:testing'] : allowed,
      })),
    ],
  },
];

const TESTS = ['**/*.spec.ts', '**/*.e2e-spec.ts', '**/test/**/*.ts'];

export default [
  // JavaScript is not linted, except the tools (plain CommonJS, type-checked by tools/tsconfig.json).
  { ignores: ['**/dist', '**/node_modules', '**/.data', '**/.nx', '**/*.js', '!tools/*.js', '**/jest.config.js', 'jest.preset.js'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': boundaries(false),
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read settings through the typed config (libs/config).' },
      ],
    },
  },
  { files: TESTS, rules: { '@nx/enforce-module-boundaries': boundaries(true) } },
  { files: ['tools/*.js'], languageOptions: { sourceType: 'commonjs' }, rules: { '@typescript-eslint/no-require-imports': 'off' } },
  {
    // Config loading, bootstrap, tests and the benchmarks are where the environment is read on purpose.
    files: ['libs/config/**/*.ts', 'libs/testkit/**/*.ts', ...TESTS, '**/main.ts', '**/*.cli.ts', 'bench/**/*.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
];
