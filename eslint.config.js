// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { dirname, relative, resolve } from 'node:path';

const NOT_SANDBOX = {
  group: ['@podops/sandbox', '@podops/sandbox/*'],
  message: 'Only the commands that run the sandbox load it (podops up, podops sandbox), and tests: a production install has no sandbox.',
};
const NOT_SANDBOX_DYNAMICALLY = { selector: 'ImportExpression[source.value=/^@podops\\/sandbox/]', message: NOT_SANDBOX.message };
const SANDBOX_COMMANDS = ['src/cli/local-stack.ts', 'src/cli/commands/sandbox.ts'];
const PACKAGE_BY_NAME = { regex: '(^|/)packages/', message: 'Import a workspace package by its name (@podops/sandbox), as an installed copy is imported.' };

/**
 * The sandbox is a package of its own: no import of a file under packages/sandbox (static, dynamic or a
 * re-export) climbs out of it, and none names podops, which depends on it and not the other way.
 * @type {import('eslint').Rule.RuleModule}
 */
const sandboxBoundary = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      outside: 'The sandbox is a package of its own: it imports nothing from outside packages/sandbox ({{source}}).',
      podops: 'The sandbox does not depend on podops: podops depends on it ({{source}}).',
    },
  },
  create(context) {
    const root = resolve(import.meta.dirname, 'packages/sandbox');
    /** @param {{ source?: import('estree').Node | null }} node */
    const check = (node) => {
      const source = node.source;
      if (source?.type !== 'Literal' || typeof source.value !== 'string') return;
      const path = source.value;
      if (path === 'podops' || path.startsWith('podops/')) context.report({ node: source, messageId: 'podops', data: { source: path } });
      else if (/^\.{0,2}\//.test(path) && relative(root, resolve(dirname(context.filename), path)).startsWith('..')) {
        context.report({ node: source, messageId: 'outside', data: { source: path } });
      }
    };
    return { ImportDeclaration: check, ExportAllDeclaration: check, ExportNamedDeclaration: check, ImportExpression: check };
  },
};

const WEBHOOKS_NOT_CONTROLLERS = 'Webhooks are drivers of the pure core; they do not reach into the controllers.';
const CACHES_SERVE_BOTH = 'The caches serve webhooks and controllers alike: they import neither.';

/**
 * The rules of one pure core folder: it imports only files of its own folder, of the `folders` next to it, and
 * the `builtins`; tests and their fixtures are not held to it.
 * @param {string[]} files
 * @param {string[]} folders
 * @param {string[]} [builtins]
 * @returns {import('eslint').Linter.Config}
 */
function pureCore(files, folders, builtins = []) {
  const allowed = ['\\./[^/]+', ...folders.map((folder) => `\\.\\./${folder}/[^/]+`), ...builtins];
  const may = ['its own folder', ...folders.map((folder) => `${folder}/`), ...builtins].join(', ');
  const message = `The pure core does no I/O: time and state are parameters. This folder imports only: ${may}.`;
  return {
    files,
    ignores: ['**/*.test.ts', '**/*.test-support.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: `^(?!(${allowed.join('|')})$)`, message }] }],
      'no-restricted-syntax': ['error', { selector: 'ImportExpression', message: 'The pure core loads no code at run time: a dynamic import() would slip past its allow-list.' }],
    },
  };
}

const PROM_CLIENT_TYPES_ONLY = { name: 'prom-client', allowTypeImports: true, message: 'Import Registry, Counter, Gauge and Histogram from src/kube/prometheus.ts (prom-client only for types).' };

export default tseslint.config(
  { ignores: ['**/dist/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  // The dashboard's page runs in the browser.
  {
    files: ['src/dashboard/page/**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(
        ['document', 'window', 'fetch', 'EventSource', 'AbortController', 'URLSearchParams', 'ResizeObserver', 'requestAnimationFrame', 'setInterval', 'clearInterval'].map((name) => [name, 'readonly']),
      ),
    },
  },
  // The house's architecture, checked: which folder may import which. A later block replaces the rule of an
  // earlier one for the files it matches, so each block lists every pattern its files must avoid.
  {
    files: ['**/*.ts'],
    ignores: ['packages/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [PACKAGE_BY_NAME] }] },
  },
  {
    files: ['src/**/*.ts', 'examples/**/*.ts'],
    ignores: SANDBOX_COMMANDS,
    rules: {
      'no-restricted-imports': ['error', { patterns: [PACKAGE_BY_NAME, NOT_SANDBOX] }],
      'no-restricted-syntax': ['error', NOT_SANDBOX_DYNAMICALLY],
    },
  },
  // prom-client's entry point loads @opentelemetry/api with its default metrics: podops' code takes the metric
  // classes from kube/prometheus.ts, which loads them part by part.
  {
    files: ['src/**/*.ts'],
    ignores: ['**/*.test.ts', 'src/kube/prometheus.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [PROM_CLIENT_TYPES_ONLY] }] },
  },
  // The commands that run the sandbox load it when they run, with `await import()`: `podops up --help` needs no
  // sandbox, and where none is installed they say so (sandboxNotInstalled).
  {
    files: SANDBOX_COMMANDS,
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            PROM_CLIENT_TYPES_ONLY,
            { name: '@podops/sandbox', allowTypeImports: true, message: "Load the sandbox with `await import('@podops/sandbox').catch(sandboxNotInstalled)` where the command runs it." },
          ],
        },
      ],
    },
  },
  {
    files: ['src/webhook/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [PACKAGE_BY_NAME, NOT_SANDBOX, { group: ['**/controllers/*', '**/operator/*', '**/cli/*'], message: WEBHOOKS_NOT_CONTROLLERS }] }],
      'no-restricted-syntax': [
        'error',
        NOT_SANDBOX_DYNAMICALLY,
        { selector: 'ImportExpression[source.value=/(^|\\/)(controllers|operator|cli)\\//]', message: WEBHOOKS_NOT_CONTROLLERS },
      ],
    },
  },
  // The caches serve the webhooks and the controllers alike: they import neither, nor what wires them.
  {
    files: ['src/cache/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [PACKAGE_BY_NAME, NOT_SANDBOX, { group: ['**/controllers/*', '**/webhook/*', '**/operator/*', '**/cli/*'], message: CACHES_SERVE_BOTH }] }],
      'no-restricted-syntax': ['error', NOT_SANDBOX_DYNAMICALLY, { selector: 'ImportExpression[source.value=/(^|\\/)(controllers|webhook|operator|cli)\\//]', message: CACHES_SERVE_BOTH }],
    },
  },
  // The pure core does no I/O: an allow-list per folder of what it may import (its own folder, the pure folders
  // below it, and the few built-ins that compute), and no dynamic import(), which would slip past the list.
  // api/ imports nothing else; lifecycle/ and rollout/ build on api/; transition evaluation on lifecycle/ too.
  pureCore(['src/api/**/*.ts'], []),
  pureCore(['src/lifecycle/**/*.ts'], ['api']),
  pureCore(['src/rollout/**/*.ts'], ['api'], ['node:crypto']),
  // Only the top level of transition/: its webhook/ folder is the I/O side of the webhook rule.
  pureCore(['src/transition/*.ts'], ['api', 'lifecycle'], ['node:crypto', 'node:util']),
  // The conformance suite holds for any implementation: it speaks the wire protocol (api/, the client), and never
  // asks podops' own lifecycle, transition, SDK or controller code what the right answer is.
  {
    files: ['src/conformance/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            PACKAGE_BY_NAME,
            NOT_SANDBOX,
            {
              group: ['**/lifecycle/*', '**/transition/*', '**/transition/**', '**/rollout/*', '**/sdk/*', '**/controllers/*', '**/webhook/*', '**/operator/*', '**/cli/*'],
              message: "Conformance scenarios state the protocol's expectations themselves; podops' implementation is what they check, not what they ask.",
            },
          ],
        },
      ],
    },
  },
  // The examples are written as a user of the published package would write them: only its entry points.
  {
    files: ['examples/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            PACKAGE_BY_NAME,
            NOT_SANDBOX,
            { regex: '^\\.\\./\\.\\./src/(?!(sdk|kube|api|lifecycle)/index\\.ts$)', message: 'Examples import only what the package exports: podops/sdk, podops/runtime, podops/api, podops/lifecycle (src/*/index.ts).' },
          ],
        },
      ],
    },
  },
  // The sandbox package imports nothing from podops, at any depth and however it imports.
  {
    files: ['packages/sandbox/**/*.ts'],
    plugins: { house: { rules: { 'sandbox-boundary': sandboxBoundary } } },
    rules: { 'house/sandbox-boundary': 'error' },
  },
);
