import type { BrowserContext, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import type { Rgba } from './pixel-difference.js';

/**
 * Decodes stored pictures to pixels in a blank tab of the replay's Chromium: the screenshots are WebP,
 * which no package crawlite has reads, and the browser that drew them reads them as it drew them.
 * The tab hands each back as PNG (lossless), which pngjs turns into RGBA.
 */
export class ImageDecoder {
  private constructor(private readonly page: Page) {}

  static async open(context: BrowserContext): Promise<ImageDecoder> {
    return new ImageDecoder(await context.newPage());
  }

  async decode(type: string, data: Buffer): Promise<Rgba> {
    const src = `data:${type};base64,${data.toString('base64')}`;
    const png = await this.page.evaluate<string>(`(async (src) => {
      const image = new Image();
      image.src = src;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.naturalWidth;
      canvas.height = image.naturalHeight;
      canvas.getContext('2d').drawImage(image, 0, 0);
      return canvas.toDataURL('image/png').slice('data:image/png;base64,'.length);
    })(${JSON.stringify(src)})`);
    const { width, height, data: pixels } = PNG.sync.read(Buffer.from(png, 'base64'));
    return { width, height, data: pixels };
  }

  close(): Promise<void> {
    return this.page.close().catch(() => undefined);
  }
}
