import { spawn } from 'node:child_process';
import { platform } from 'node:os';

/** Opens a URL in the desktop's browser, best effort: a missing opener or a headless machine is not an error. */
export function openBrowser(url: string): void {
  const os = platform();
  const [command, args] = os === 'darwin' ? ['open', [url]] : os === 'win32' ? ['cmd', ['/c', 'start', '""', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(command, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // Nothing to open with: the URL is printed anyway.
  }
}
