import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

export default [
  { ignores: ['**/dist', '**/node_modules', '**/.data', '**/.nx', 'tools/**', 'bench/**', '**/jest.config.js', 'jest.preset.js'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': [
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
            // Layering: apps on top, utilities at the bottom.
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:feature', 'type:data-access', 'type:util', 'type:testing'] },
            // The test kit boots whole apps, so it sits above everything else and only tests use it.
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:feature', 'type:data-access', 'type:util'] },
            { sourceTag: 'type:feature', onlyDependOnLibsWithTags: ['type:feature', 'type:data-access', 'type:util'] },
            { sourceTag: 'type:data-access', onlyDependOnLibsWithTags: ['type:data-access', 'type:util'] },
            { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util'] },
            // Deployment checks (apps/deploy-e2e) boot built apps as processes; they use only the test kit and utilities.
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:testing', 'type:util'] },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read settings through the typed config (libs/config).' },
      ],
    },
  },
  {
    // Config loading, bootstrap and tests are where the environment is read on purpose.
    files: ['libs/config/**/*.ts', 'libs/testkit/**/*.ts', '**/*.spec.ts', '**/*.e2e-spec.ts', '**/main.ts', '**/*.cli.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
];
