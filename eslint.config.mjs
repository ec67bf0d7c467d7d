import { existsSync, readdirSync } from 'node:fs';
import nx from '@nx/eslint-plugin';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const root = import.meta.dirname;

// Type-aware rules need each file's own program: every project's spec config covers its sources and tests
// (the console's app config covers its browser code). Listed per folder, so a lint run builds only the programs it needs.
const programs = [
  ...['apps', 'libs'].flatMap((group) =>
    readdirSync(`${root}/${group}`)
      .filter((name) => existsSync(`${root}/${group}/${name}/tsconfig.spec.json`))
      .map((name) => ({ files: [`${group}/${name}/**/*.ts`], project: `${group}/${name}/tsconfig.spec.json` })),
  ),
  { files: ['apps/console/src/**/*.tsx', 'apps/console/src/**/*.ts'], ignores: ['apps/console/src/**/*.spec.ts'], project: 'apps/console/tsconfig.json' },
  { files: ['bench/**/*.ts'], project: 'bench/tsconfig.json' },
  { files: ['tools/*.js'], project: 'tools/tsconfig.json' },
];

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
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read settings through the typed config (libs/config).' }],
    },
  },
  { files: TESTS, rules: { '@nx/enforce-module-boundaries': boundaries(true) } },
  // Promises: none left floating, none passed where a callback's result is ignored, no await on a non-promise,
  // no async function without an await.
  ...programs.map(({ files, ignores, project }) => ({
    files,
    ...(ignores ? { ignores } : {}),
    languageOptions: { parserOptions: { project, tsconfigRootDir: root } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/require-await': 'error',
    },
  })),
  { files: ['apps/console/src/**/*.tsx', 'apps/console/src/**/*.ts'], ...reactHooks.configs.flat['recommended-latest'] },
  // In tests, in-memory fakes implement async repositories without awaiting anything: no async-without-await rule there.
  { files: TESTS, rules: { '@typescript-eslint/require-await': 'off' } },
  { files: ['tools/*.js'], languageOptions: { sourceType: 'commonjs' }, rules: { '@typescript-eslint/no-require-imports': 'off' } },
  {
    // Config loading, bootstrap, tests and the benchmarks are where the environment is read on purpose.
    files: ['libs/config/**/*.ts', 'libs/testkit/**/*.ts', ...TESTS, '**/main.ts', '**/*.cli.ts', 'bench/**/*.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
];
