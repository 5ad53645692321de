/**
 * Build the browser half (src/client/index.jsx) into lib/client.js, the web
 * shell's module-loader bundle: a classic script calling
 * `window.__ModuleLoader__.load({ id, factory: (require) => … })` with
 * CommonJS inside, the format of the harness's own client bundles
 * (`@deepseek-ai/dsh-client-ui-skill@0.1.0-rc.8` lib/client.js, under
 * e2e/node_modules; loader: `@deepseek-ai/dsh-client-modules@0.1.0-rc.8`
 * lib/client.js). React and the shell's
 * libraries stay external: the factory's `require` answers them from the
 * shell. `id` is the package name, which is the loader entry name the host's
 * client-module scan serves the bundle under (docs/architecture.md §7,
 * "Bundle format").
 *
 * Usage: node scripts/build-client.mjs   (run by `npm run build` and setup)
 */
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { name } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))

await build({
  entryPoints: [join(root, 'src', 'client', 'index.jsx')],
  outfile: join(root, 'lib', 'client.js'),
  bundle: true,
  format: 'cjs',
  platform: 'browser',
  target: 'es2022',
  jsx: 'automatic',
  // Everything the shell provides is required at materialization, never bundled.
  external: ['react', 'react/jsx-runtime', 'react-dom', '@deepseek-ai/*'],
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
  banner: { js: `window.__ModuleLoader__.load({\n\tid: ${JSON.stringify(name)},\n\tfactory: (require) => {\n\t\tvar module = { exports: {} };\n\t\tvar exports = module.exports;` },
  footer: { js: '\t\treturn module.exports;\n\t}\n});' },
})
