import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Arrows point down: server/boot (entry points, wiring) -> faces (server/http, server/cli,
// server/graphql, jobs/) -> the domain (server/<area>, server/outbox) -> db/. Each room below lists
// what it must not import; test/lint/layering.test.ts proves every rule fails on a forbidden import.
const room = {
  jobs: ['@/jobs', '@/jobs/*', '**/jobs/*'],
  boot: ['@/server/boot/*', '**/boot/*'],
  http: ['@/server/http/*', '**/http/*'],
  cli: ['@/server/cli/*', '**/cli/*'],
  graphql: ['@/server/graphql/*', '**/graphql/*'],
  app: ['@/app/*', '**/app/*'],
  server: ['@/server/*', '**/server/*'],
  data: ['@/db', '@/db/*', '**/db/*', 'drizzle-orm', 'drizzle-orm/*', 'postgres'],
  // Frameworks, queues and transports the domain must not know: faces adapt them.
  frameworks: ['next', 'next/*', 'react', 'react-dom', 'pg-boss', '@hono/*', '@apollo/*', 'type-graphql', 'graphql'],
};

const forbid = (message, ...groups) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: groups.flat(), message }] }],
});

const FACES = ['server/http/**', 'server/cli/**', 'server/graphql/**'];

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      '.next/**',
      '.data*/**',
      'db/migrations/**',
      'next-env.d.ts',
      '.next-build.lock/**',
      'test-results/**',
      // Written by `npm run client:generate`; test/clients/generated.test.ts compares it byte for byte.
      'clients/typescript/generated/**',
    ],
  },
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
    files: ['server/**/*.ts'],
    ignores: ['server/boot/**', ...FACES],
    rules: forbid(
      'The domain imports no entry point, face, jobs/ or app/, and no framework or queue: a verb that needs a job enqueues through server/outbox; validation lives in server/validation.ts.',
      room.jobs,
      room.boot,
      room.http,
      room.cli,
      room.graphql,
      room.app,
      room.frameworks,
    ),
  },
  // A face (http, cli, graphql) calls domain verbs: no entry point, jobs/, app/ or other face.
  {
    files: ['server/http/**'],
    rules: forbid('A face imports no entry point, jobs/, app/ or other face.', room.jobs, room.boot, room.app, room.cli, room.graphql),
  },
  {
    files: ['server/cli/**'],
    rules: forbid('A face imports no entry point, jobs/, app/ or other face.', room.jobs, room.boot, room.app, room.http, room.graphql),
  },
  {
    // Resolvers validate, call one verb in server/, and map the result; they never reach the database.
    files: ['server/graphql/**'],
    rules: forbid(
      'A face imports no entry point, jobs/, app/, other face, or the database.',
      room.jobs,
      room.boot,
      room.app,
      room.http,
      room.cli,
      room.data,
    ),
  },
  {
    files: ['jobs/**/*.ts'],
    rules: forbid(
      'jobs/ (the pg-boss face) calls domain verbs; it imports no entry point, app/ or other face.',
      room.boot,
      room.http,
      room.cli,
      room.graphql,
      room.app,
    ),
  },
  {
    // Route handlers and console pages validate, call one verb in server/ (or /api/graphql), and map
    // the result: no data access, no jobs, no wiring.
    files: ['app/**/*.ts', 'app/**/*.tsx'],
    rules: forbid(
      'app/ calls verbs through a face; database access, jobs and wiring live in server/ and jobs/.',
      room.data,
      room.jobs,
      room.boot,
    ),
  },
  {
    // The partner's client is installed apart from the service: it imports only its own files and its
    // npm dependencies (its types are generated from the OpenAPI document, never from our schemas).
    files: ['clients/typescript/**/*.ts'],
    rules: forbid(
      'clients/typescript/ is shipped to partners: it imports nothing of the service (server/, db/, jobs/, app/).',
      ['@/*', '**/server/*', '**/jobs/*', '**/app/*'],
      room.data,
    ),
  },
  {
    files: ['db/**/*.ts'],
    rules: forbid('db/ is the bottom room: it imports nothing of server/, jobs/ or app/.', room.server, room.jobs, room.app),
  },
);
