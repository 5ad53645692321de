/**
 * The browser half's CSS, injected once when the bundle materializes (the
 * module system claims untagged <style> tags for the materializing plugin;
 * rc.8 dsh-client-modules lib/client.js `claimStyles`). Colours come from the
 * shell's design tokens (`--dsw-alias-*`), so light and dark themes both work.
 * @module dsh-cross-session/client/styles
 */
const CSS = `
.xs-row{display:flex;flex-direction:column;font-size:14px;line-height:24px;min-width:0}
.xs-head{display:flex;align-items:center;min-width:0;height:24px;cursor:pointer;gap:8px}
.xs-title{color:var(--dsw-alias-label-secondary);flex:none}
.xs-summary{color:var(--dsw-alias-label-tertiary);flex:auto;min-width:0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.xs-chip{flex:none;font-size:12px;line-height:18px;padding:0 6px;border-radius:9px;border:1px solid var(--dsw-alias-border-l1,#ccc);color:var(--dsw-alias-label-secondary)}
.xs-ok{color:var(--dsw-alias-state-success-primary,#1a7f37);border-color:currentColor}
.xs-refused{color:var(--dsw-alias-state-error-primary,#cf222e);border-color:currentColor;font-weight:600}
.xs-pending{color:var(--dsw-alias-state-warning-primary,#9a6700);border-color:currentColor}
.xs-body{margin:4px 0 4px 12px;padding:8px 12px;border-radius:8px;background:var(--dsw-alias-markdown-code-block,rgba(127,127,127,.08));color:var(--dsw-alias-label-secondary);font-size:13px;line-height:20px;overflow:auto;max-height:320px}
.xs-body pre{margin:0;white-space:pre-wrap;overflow-wrap:anywhere;font:inherit}
.xs-table{border-collapse:collapse;width:100%}
.xs-table th{text-align:left;font-weight:500;color:var(--dsw-alias-label-caption);padding:0 8px 2px 0}
.xs-table td{padding:1px 8px 1px 0;vertical-align:top;white-space:nowrap;max-width:280px;overflow:hidden;text-overflow:ellipsis}
.xs-mono{font-family:var(--ds-font-family-code,monospace)}
.xs-msg{border-top:1px solid var(--dsw-alias-border-l2,rgba(127,127,127,.2));padding-top:4px;margin-top:4px}
.xs-msg-head{color:var(--dsw-alias-label-caption);font-size:12px}
.xs-card{list-style:none;padding:16px;border:1px solid var(--dsw-alias-border-l1,#ddd);border-radius:12px;display:flex;flex-direction:column;gap:12px}
.xs-card h3{margin:0;font-size:15px;color:var(--dsw-alias-label-primary)}
.xs-card p{margin:0;color:var(--dsw-alias-label-tertiary);font-size:13px}
.xs-field{display:grid;grid-template-columns:minmax(160px,220px) 1fr;gap:2px 16px;align-items:start}
.xs-field label{color:var(--dsw-alias-label-primary);font-size:14px}
.xs-field .xs-hint{grid-column:2;color:var(--dsw-alias-label-tertiary);font-size:12px;line-height:18px}
.xs-field input,.xs-field select{width:160px;font:inherit;font-size:13px;padding:2px 6px;border-radius:6px;border:1px solid var(--dsw-alias-border-l1,#ccc);background:transparent;color:var(--dsw-alias-label-primary)}
.xs-field input[aria-invalid=true]{border-color:var(--dsw-alias-state-error-primary,#cf222e)}
.xs-field .xs-meta{color:var(--dsw-alias-label-caption);font-family:var(--ds-font-family-code,monospace);font-size:11px}
.xs-error{grid-column:2;color:var(--dsw-alias-state-error-primary,#cf222e);font-size:12px}
.xs-actions{display:flex;gap:8px;align-items:center}
.xs-actions button{font:inherit;font-size:13px;padding:2px 12px;border-radius:6px;border:1px solid var(--dsw-alias-border-l1,#ccc);background:transparent;color:var(--dsw-alias-label-primary);cursor:pointer}
.xs-actions button:disabled{opacity:.5;cursor:default}
.xs-status{font-size:13px;color:var(--dsw-alias-label-secondary)}
.xs-status[data-kind=conflict],.xs-status[data-kind=failed],.xs-status[data-kind=invalid]{color:var(--dsw-alias-state-error-primary,#cf222e)}
.xs-status[data-kind=saved]{color:var(--dsw-alias-state-success-primary,#1a7f37)}
.xs-row a{color:var(--dsw-alias-label-link,var(--dsw-alias-label-secondary));font-size:13px;flex:none}
`

/** Add the stylesheet once per page. */
export function injectStyles() {
  if (typeof document === 'undefined' || document.querySelector('style[data-plugin-css="dsh-cross-session"]') !== null) return
  const tag = document.createElement('style')
  tag.dataset.plugin = 'dsh-cross-session'
  tag.dataset.pluginCss = 'dsh-cross-session'
  tag.textContent = CSS
  document.head.appendChild(tag)
}
