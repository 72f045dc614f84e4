// The page's view toolkit: Preact with htm tagged templates (no build step), re-exported so
// every component imports one module.
import htm from 'htm';
import { h, render } from 'preact';

import { useEffect, useState } from 'preact/hooks';

export { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';

/** `html\`<div>…</div>\`` builds Preact elements. */
export const html = htm.bind(h);
export { render };

/** `value` once it has stayed the same for `ms` (typed filters apply after a pause in typing). */
export function useSettled(value, ms) {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
