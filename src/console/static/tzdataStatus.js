// The time-zone data versions in the Inspector's status bar: the version this Host resolves zones
// with and the one the schedule was last written with (both from `GET /api/drift`), marked when
// they differ. Reloaded when the schedule changes, since a write records the version in use.
import { api } from './api.js';
import { html, useEffect, useState } from './html.js';

/** `{tzdata, writtenWith?}` from the drift report, null while loading or when it failed; reloaded when `version` changes. */
export function useTzdata(version) {
  const [versions, setVersions] = useState(null);
  useEffect(() => {
    let live = true;
    api('GET', '/api/drift').then(
      (report) => live && setVersions({ tzdata: report.tzdata, writtenWith: report.writtenWith }),
      () => live && setVersions(null),
    );
    return () => {
      live = false;
    };
  }, [version]);
  return versions;
}

/** The versions in words: `Time-zone data 2025b · schedule written with 2024a (differs)`. */
export function TzdataStatus({ versions }) {
  if (!versions) return null;
  const { tzdata, writtenWith } = versions;
  const differs = writtenWith !== undefined && writtenWith !== tzdata;
  return html`<span class=${`tzdata ${differs ? 'differs' : ''}`} data-testid="tzdata-status">
    Time-zone data <code>${tzdata}</code> ·
    ${writtenWith === undefined ? html` schedule version not recorded yet` : html` schedule written with <code>${writtenWith}</code>`}
    ${differs && html` <span class="badge drifted">differs</span>`}
  </span>`;
}
