import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', '.next/**', '.data*/**', 'db/migrations/**', 'next-env.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': 'off',
    },
  },
  {
    // Plain Node scripts (the README's verification snippet): Node's globals, no TypeScript.
    files: ['docs/**/*.mjs'],
    languageOptions: { globals: { Buffer: 'readonly', process: 'readonly', console: 'readonly' } },
  },
  {
    // Layering: route handlers (and later GraphQL resolvers) validate, call one verb in server/, and map
    // the result. They never reach the database themselves.
    files: ['app/**/*.ts', 'app/**/*.tsx', 'server/graphql/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@/db', '@/db/*', '**/db/*', 'drizzle-orm', 'drizzle-orm/*', 'postgres'], message: 'Route handlers call a verb in server/; database access lives there.' },
          ],
        },
      ],
    },
  },
);
