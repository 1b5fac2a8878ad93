import { PNG } from 'pngjs';

/** A `width`×`height` PNG of one colour: the archived site's images, told apart by colour in screenshots. */
export function solidPng(width: number, height: number, [r, g, b]: [number, number, number]): Buffer {
  const png = new PNG({ width, height });
  for (let i = 0; i < width * height; i++) png.data.set([r, g, b, 255], i * 4);
  return PNG.sync.write(png, { deflateLevel: 9 });
}

/** The RGB of one pixel of a PNG (a screenshot). */
export function pixelAt(image: Buffer, x: number, y: number): [number, number, number] {
  const png = PNG.sync.read(image);
  const i = (Math.round(y) * png.width + Math.round(x)) * 4;
  return [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
}

/** Share of pixels of two same-sized PNGs that differ by more than `tolerance` in any channel (1 if sizes differ). */
export function differingShare(a: Buffer, b: Buffer, tolerance = 8): number {
  const x = PNG.sync.read(a);
  const y = PNG.sync.read(b);
  if (x.width !== y.width || x.height !== y.height) return 1;
  let differing = 0;
  for (let i = 0; i < x.data.length; i += 4) {
    if (
      Math.abs(x.data[i]! - y.data[i]!) > tolerance ||
      Math.abs(x.data[i + 1]! - y.data[i + 1]!) > tolerance ||
      Math.abs(x.data[i + 2]! - y.data[i + 2]!) > tolerance
    )
      differing++;
  }
  return differing / (x.width * x.height);
}
