// Security headers of the web task page. The Content-Security-Policy allows scripts from this
// Host only, plus the page's inline import map by its hash; no framing, no referrer.
import { createHash } from 'node:crypto';

const IMPORT_MAP = /<script type="importmap">([\s\S]*?)<\/script>/;

/** The headers to send with `html`. */
export function pageHeaders(html: string): Record<string, string> {
  const importMap = IMPORT_MAP.exec(html)?.[1];
  const hash = importMap === undefined ? '' : ` 'sha256-${createHash('sha256').update(importMap).digest('base64')}'`;
  return {
    'content-security-policy': `default-src 'self'; script-src 'self'${hash}; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-cache',
  };
}
