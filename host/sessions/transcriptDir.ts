// The folder of Session transcripts: creating it durably, and listing the Sessions it holds.
import { mkdir, open, readdir } from 'node:fs/promises';
import { isSessionId } from './sessionId.ts';

/** Creates the folder (and its parents) when missing. */
export async function ensureDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
}

/** Fsyncs a folder, so a file just created in it survives a crash. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The Session ids that have a transcript in `dir`, sorted; none when the folder is missing. */
export async function listTranscripts(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) => name.slice(0, -'.jsonl'.length))
    .filter(isSessionId)
    .sort();
}
