/**
 * Test-only stand-in for issue 9's host half: registers the `cross-session`
 * settings namespace with the host settings service, so the web
 * "Plugin configuration" tab dispatches this package's card (the tab renders
 * a card only for a namespace the host serves — rc.8
 * `@deepseek-ai/dsh-client-ui-settings-plugins` lib/client.js
 * `ConfigurablePluginsTabController`).
 *
 * Built from the published `installSettingsSection` and schemastery of the
 * harness under test (e2e/node_modules, rc.8), with the schema generated from
 * lib/settings-table.js — the same facts the card shows. It feeds nothing to
 * the plugin: the plugin still reads its composition row. Remove this row
 * from the web e2e once the entry registers the section itself (issue 9).
 *
 * Config: `table` (absolute path of lib/settings-table.js).
 * @module test/e2e/support/settings-section
 */
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'

export const name = 'e2e-cross-session-settings'

const require = createRequire(import.meta.url)
const harness = (spec) => import(pathToFileURL(require.resolve(spec, { paths: [new URL('../../../e2e/', import.meta.url).pathname] })).href)

export async function apply(ctx, config = {}) {
  const { installSettingsSection, settingsNamespace } = await harness('@deepseek-ai/dsh-settings')
  const z = (await harness('@deepseek-ai/schemastery')).default
  const { SETTINGS_TABLE, SETTINGS_NAMESPACE } = await import(pathToFileURL(config.table).href)
  const fields = {}
  for (const row of SETTINGS_TABLE) {
    const base = row.kind === 'boolean' ? z.boolean()
      : row.kind === 'integer' ? z.number().step(1).min(row.min).max(row.max)
        : z.union(row.values)
    fields[row.key] = base.default(row.default).description(row.description.en)
  }
  const schema = z.object(fields)
  installSettingsSection(ctx, settingsNamespace(SETTINGS_NAMESPACE), schema, {}, {
    setSource: () => {},
    onChange: () => {},
  })
}
