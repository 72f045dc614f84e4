// The page's tabs. Each panel is `{id, label, render(ctx)}`; the tab bar lists them in order.
// Another view (an inspector of the actor system, say) is added with `registerPanel` from its
// own module imported by app.js; `ctx` carries the shared page state (see app.js).
import { html } from './html.js';
import { TasksPanel } from './tasksPanel.js';
import { TranscriptPanel } from './transcriptPanel.js';

const panels = [
  { id: 'tasks', label: 'Tasks', render: (ctx) => html`<${TasksPanel} ...${ctx} />` },
  {
    id: 'transcripts',
    label: 'Transcripts',
    render: (ctx) =>
      html`<${TranscriptPanel}
        sessionId=${ctx.route.sessionId ?? null}
        messageId=${ctx.route.messageId ?? null}
        sessions=${ctx.sessions}
        version=${ctx.transcriptVersion}
      />`,
  },
];

/** Adds a tab after the existing ones. */
export function registerPanel(panel) {
  panels.push(panel);
}

/** The tabs, in order. */
export const allPanels = () => [...panels];
