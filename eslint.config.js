// Lint and format rules of this package: typescript-eslint's
// recommended rules (syntax only, no type information, so the run stays
// fast) and @stylistic as the formatter, set to the house style: two spaces,
// no semicolons, single quotes. `npm run lint` checks; `npm run format` fixes.
import stylistic from '@stylistic/eslint-plugin'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  // The web face's components are .jsx (src/client/).
  { files: ['**/*.jsx'] },
  {
    ignores: ['lib/**', 'node_modules/**', 'e2e/**', 'tools/**', 'coverage/**', '.tmp/**', 'reports/**', '**/*.d.ts'],
  },
  ...tseslint.configs.recommended,
  stylistic.configs.customize({ indent: 2, quotes: 'single', semi: false, jsx: true, braceStyle: '1tbs', arrowParens: false, commaDangle: 'always-multiline' }),
  {
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: 'module',
      parserOptions: { ecmaFeatures: { jsx: true } },
    },
    rules: {
      '@stylistic/member-delimiter-style': ['error', {
        multiline: { delimiter: 'none' },
        singleline: { delimiter: 'comma', requireLast: false },
      }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      // The house style: `value => …`, and parentheses only where a type or a second parameter needs them.
      '@stylistic/arrow-parens': ['error', 'as-needed'],
      // Long calls break after an argument (`call(step, signal,\n  () => …)`) and short guards stay on one line.
      '@stylistic/list-style': 'off',
      '@stylistic/max-statements-per-line': 'off',
      '@stylistic/multiline-ternary': 'off',
      // Components stay compact: short elements and their props on one line.
      '@stylistic/jsx-one-expression-per-line': 'off',
      '@stylistic/jsx-first-prop-new-line': 'off',
      '@stylistic/jsx-max-props-per-line': 'off',
      '@stylistic/jsx-closing-bracket-location': 'off',
    },
  },
  {
    // Lines of the package's code stay readable side by side: at most 140 columns, comments
    // included; a URL or a regular expression literal may run longer (breaking it changes it).
    files: ['src/**'],
    rules: {
      '@stylistic/max-len': ['error', { code: 140, tabWidth: 2, ignoreUrls: true, ignoreRegExpLiterals: true }],
    },
  },
  {
    // Fakes and harness drivers read untyped host objects and keep `this` for callbacks.
    files: ['test/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-this-alias': 'off',
    },
  },
)
