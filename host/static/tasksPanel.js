// The Tasks tab: the catalog across the top, the selected task's detail and the create form
// below it.
import { Catalog } from './catalog.js';
import { CreateForm } from './createForm.js';
import { html } from './html.js';
import { TaskDetail } from './taskDetail.js';

/** The Tasks tab over the shared page state. */
export function TasksPanel(ctx) {
  const { catalog, selected, select, nowMs, historyVersion, openTranscript, flash } = ctx;
  const entry = selected && catalog.find((e) => e.sessionId === selected.sessionId && e.record.id === selected.id);
  const deleted = (text) => {
    select(null);
    flash(text);
  };
  return html`<div class="tasks">
    <${Catalog} entries=${catalog} selected=${selected} onSelect=${select} nowMs=${nowMs} />
    <div class="below">
      <div class="main-col">
        ${
          entry
            ? html`<${TaskDetail}
              entry=${entry}
              nowMs=${nowMs}
              historyVersion=${historyVersion}
              onOpenTranscript=${openTranscript}
              onDeleted=${deleted}
              onClose=${() => select(null)}
            />`
            : html`<section class="card placeholder"><p class="empty">${selected ? 'This task no longer exists.' : 'Select a task to see its next occurrences, its delivery history, and to edit or delete it.'}</p></section>`
        }
      </div>
      <div class="side-col"><${CreateForm} onCreated=${(sessionId, view) => select({ sessionId, id: view.id })} /></div>
    </div>
  </div>`;
}
