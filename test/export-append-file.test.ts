import { afterAll, expect, it } from 'vitest';
import { AppendFile } from '../src/export/append-file.js';
import { tempDir } from './support/archive.js';

// An export waits for the disk after every large record: each wait must leave no listener behind,
// or a long export leaks one per record (and Node warns of a leak after ten).

const tmp = tempDir();
afterAll(() => tmp.cleanup());

it('waits for the disk many times without a listener leak warning', async () => {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.name);
  process.on('warning', onWarning);
  try {
    const file = new AppendFile(tmp.path('big.bin'));
    const chunk = Buffer.alloc(256 * 1024, 1);
    for (let i = 0; i < 20; i += 1) await file.write(chunk);
    await file.close();
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', onWarning);
  }
  expect(warnings).not.toContain('MaxListenersExceededWarning');
});

it('is destroyed without an error while writes are under way and after, so a failed export reports its own error', async () => {
  // An export that fails (or is aborted) destroys its file while its records may still be being written.
  const file = new AppendFile(tmp.path('destroyed.bin'));
  const chunk = Buffer.alloc(1024 * 1024, 1);
  const pending = [file.write(chunk), file.write(chunk)];
  for (const write of pending) write.catch(() => undefined);
  const destroyed = file.destroy();
  const late = file.write(chunk);
  late.catch(() => undefined);
  await expect(destroyed).resolves.toBeUndefined();
  await expect(late).rejects.toMatchObject({ code: 'ERR_STREAM_DESTROYED' });
});
