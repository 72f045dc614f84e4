// The page's view toolkit: Preact with htm tagged templates (no build step), re-exported so
// every component imports one module.
import htm from 'htm';
import { h, render } from 'preact';

export { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';

/** `html\`<div>…</div>\`` builds Preact elements. */
export const html = htm.bind(h);
export { render };
