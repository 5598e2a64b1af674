const js = require('@eslint/js');
const tseslint = require('typescript-eslint');

// Dependencies through their public API only, in every file we lint: the service (src/) and what
// measures and tests it (bench/, test/, scripts/), as test/public-api-only.test.ts checks. No path
// inside a package (`<pkg>/lib/...`, `/dist/`, `/src/`, `/build/`, `/internal/`), by import,
// require() or import(), and no member whose name starts with an underscore (what libraries keep
// private; our own code names no member so either). A documented subpath export
// (`@electric-sql/pglite/contrib/pg_trgm`, `tsx/cjs`) is not inside one of those folders.
const DEEP = '^(@[^/]+/)?[^./][^/]*/(lib|dist|src|build|internal)(/|$)';
// esquery's regular expressions end at the first slash: the same pattern with slashes escaped.
const DEEP_SELECTOR = DEEP.replaceAll('/', '\\x2F');
const DEEP_MESSAGE = 'a path inside a dependency is not its public API: import the package itself or a subpath it exports';
const PRIVATE_MESSAGE = 'a member named with a leading underscore is private to its library: use its public API';
const PUBLIC_API_ONLY = {
  'no-restricted-imports': ['error', { patterns: [{ regex: DEEP, message: DEEP_MESSAGE }] }],
  'no-restricted-syntax': ['error',
    { selector: `CallExpression[callee.name='require'] > Literal[value=/${DEEP_SELECTOR}/]`, message: DEEP_MESSAGE },
    { selector: `ImportExpression > Literal[value=/${DEEP_SELECTOR}/]`, message: DEEP_MESSAGE },
    { selector: `TSImportType Literal[value=/${DEEP_SELECTOR}/]`, message: DEEP_MESSAGE },
    { selector: 'MemberExpression[property.name=/^_[A-Za-z]/]', message: PRIVATE_MESSAGE },
    { selector: 'MemberExpression[computed=true][property.value=/^_[A-Za-z]/]', message: PRIVATE_MESSAGE },
  ],
};

module.exports = tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.svapi-data/', 'coverage/', 'src/generated/', '.stryker-tmp/', 'reports/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', process: 'readonly', __dirname: 'readonly', console: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  { files: ['**/*.{ts,js,mjs,cjs}'], rules: PUBLIC_API_ONLY },
);

module.exports.PUBLIC_API_ONLY = PUBLIC_API_ONLY;
