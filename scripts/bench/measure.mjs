// Measuring processes (wall, CPU, peak RSS) and cleaning up after them: every child, server and
// temp dir the bench makes goes, however the bench ends.
import { execFileSync, spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';

const TIME = '/usr/bin/time';
export const SAMPLE_MS = 100;

const children = new Set(); // pids of process-group leaders we spawned (detached)
const tempDirs = new Set();
const stoppers = new Set(); // servers: each stops itself synchronously (kill by PID)

export function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

export function onCleanup(stop) {
  stoppers.add(stop);
  return () => stoppers.delete(stop);
}

export function cleanupNow() {
  for (const pid of children) killGroup(pid, 'SIGKILL');
  children.clear();
  for (const stop of stoppers) stop();
  stoppers.clear();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  tempDirs.clear();
}

export function makeTemp(label) {
  const dir = mkdtempSync(join(tmpdir(), `crawlite-bench-${label}-`));
  tempDirs.add(dir);
  return dir;
}

export function removeTemp(dir) {
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  tempDirs.delete(dir);
}

export function which(command) {
  for (const dir of (process.env.PATH ?? '').split(delimiter).concat(['/usr/sbin', '/sbin'])) {
    if (!dir) continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

let clockTicks = 100;
try {
  clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 5_000 }).trim()) || 100;
} catch {
  // Linux's usual value
}

/** CPU seconds (self and reaped children) and peak RSS (MB) of a live process, from /proc; undefined once it is gone. */
export function procSample(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): utime is field 14, stime 15, cutime 16, cstime 17
    const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const hwm = /^VmHWM:\s+(\d+) kB/m.exec(status);
    return { cpuS: ticks / clockTicks, peakRssMB: hwm ? Number(hwm[1]) / 1024 : undefined };
  } catch {
    return undefined;
  }
}

/** Direct children of a live process (Linux 3.5+). */
export function childPids(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

// CRAWLITE_BENCH_TIMING=proc forces the /proc sampling used where GNU time is missing.
export const timeTool = process.env.CRAWLITE_BENCH_TIMING !== 'proc' && existsSync(TIME) ? TIME : undefined;

/**
 * Runs a command in its own process group and measures it: wall time from spawn to exit, user+sys
 * CPU and peak RSS from GNU time when /usr/bin/time exists, else from /proc sampled every 100 ms.
 * A run past the row timeout is stopped (SIGTERM, then SIGKILL) and marked timedOut.
 */
export function measureChild(command, args, { cwd, timeoutS }) {
  return new Promise((resolvePromise) => {
    const timeFile = timeTool ? join(makeTemp('time'), 'time.txt') : undefined;
    const [file, fileArgs] = timeTool ? [timeTool, ['-f', '%e %U %S %M', '-o', timeFile, command, ...args]] : [command, args];
    const started = performance.now();
    const child = spawn(file, fileArgs, { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child.pid);
    let output = '';
    const keep = (chunk) => {
      output = (output + chunk.toString()).slice(-8_192);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let last;
    const sampler = timeTool
      ? undefined
      : setInterval(() => {
          // A zombie still has its stat but no memory lines: keep the highest RSS seen.
          const sample = procSample(child.pid);
          if (sample)
            last = {
              cpuS: Math.max(sample.cpuS, last?.cpuS ?? 0),
              peakRssMB: Math.max(sample.peakRssMB ?? 0, last?.peakRssMB ?? 0) || undefined,
            };
        }, SAMPLE_MS);
    let timedOut = false;
    let killer;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid, 'SIGTERM');
      killer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), 3_000);
    }, timeoutS * 1_000);
    let wallS;
    child.on('exit', () => {
      wallS = (performance.now() - started) / 1_000;
    });
    child.on('error', (error) => keep(`${error.message}\n`));
    child.on('close', (code, signal) => {
      wallS ??= (performance.now() - started) / 1_000;
      clearTimeout(timer);
      clearTimeout(killer);
      if (sampler) clearInterval(sampler);
      killGroup(child.pid, 'SIGKILL'); // anything it left behind in its group
      children.delete(child.pid);
      let cpuS = last?.cpuS;
      let peakRssMB = last?.peakRssMB;
      let exitCode = code;
      if (timeFile) {
        const text = existsSync(timeFile) ? readFileSync(timeFile, 'utf8') : '';
        const figures = /^([\d.]+) ([\d.]+) ([\d.]+) (\d+)\s*$/m.exec(text);
        if (figures) {
          cpuS = Number(figures[2]) + Number(figures[3]);
          peakRssMB = Number(figures[4]) / 1024;
        }
        // GNU time exits with the command's status; it reports a signal in its file
        const killed = /Command terminated by signal (\d+)/.exec(text);
        if (killed) exitCode = 128 + Number(killed[1]);
        removeTemp(dirname(timeFile));
      }
      resolvePromise({ wallS, cpuS, peakRssMB, exitCode: exitCode ?? (signal ? 128 : null), signal, timedOut, output });
    });
  });
}
