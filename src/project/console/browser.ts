import { spawn } from 'node:child_process';

/** Opens `url` in the user's browser, detached; false when there is no opener on this system. */
export function openBrowser(url: string, platform = process.platform): boolean {
  const [cmd, args] = platform === 'darwin' ? ['open', [url]] : platform === 'win32' ? ['cmd', ['/c', 'start', '""', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(cmd as string, args as string[], { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
    return child.pid !== undefined;
  } catch {
    return false;
  }
}
