import { describe, expect, it } from 'vitest';
import { decodeHtml, sniffCharset } from '../../src/html/sniff-charset.js';
import { bytes } from '../support/bytes.js';

const NI_HAO_GBK = [0xc4, 0xe3, 0xba, 0xc3]; // 你好
const ZHONG_WEN_GBK = [0xd6, 0xd0, 0xce, 0xc4]; // 中文
const A_SJIS = [0x82, 0xa0]; // あ
const NIHON_SJIS = [0x93, 0xfa, 0x96, 0x7b]; // 日本

describe('sniffCharset: BOM', () => {
  it('reads the three BOMs and beats any declaration', () => {
    const decl = 'text/html; charset=gbk';
    expect(sniffCharset(bytes([0xef, 0xbb, 0xbf], '<meta charset="gbk">'), decl)).toEqual({ encoding: 'utf-8', source: 'bom' });
    expect(sniffCharset(bytes([0xff, 0xfe], '<\0'), decl)).toEqual({ encoding: 'utf-16le', source: 'bom' });
    expect(sniffCharset(bytes([0xfe, 0xff], '\0<'), decl)).toEqual({ encoding: 'utf-16be', source: 'bom' });
  });

  it('strips the BOM when decoding', () => {
    expect(decodeHtml(bytes([0xef, 0xbb, 0xbf], 'caf', [0xc3, 0xa9]), null)).toEqual({ text: 'café', encoding: 'utf-8', source: 'bom' });
    expect(decodeHtml(bytes([0xff, 0xfe], 'h\0i\0', [0x2d, 0x4e]), null).text).toBe('hi中');
    expect(decodeHtml(bytes([0xfe, 0xff], '\0h\0i', [0x4e, 0x2d]), null).text).toBe('hi中');
  });
});

describe('sniffCharset: Content-Type header', () => {
  it('reads the charset parameter quoted or not, in any case', () => {
    const body = bytes('<p>x</p>');
    expect(sniffCharset(body, 'text/html; charset=GBK')).toEqual({ encoding: 'gbk', source: 'header' });
    expect(sniffCharset(body, 'text/html;Charset="Shift_JIS"')).toEqual({ encoding: 'shift_jis', source: 'header' });
    expect(sniffCharset(body, 'TEXT/HTML ; foo="a;charset=big5" ; CHARSET = euc-kr ')).toEqual({ encoding: 'euc-kr', source: 'header' });
    // WHATWG label table: latin1 and ascii are windows-1252, gb2312 is gbk.
    expect(sniffCharset(body, 'text/html; charset=iso-8859-1').encoding).toBe('windows-1252');
    expect(sniffCharset(body, 'text/html; charset=gb2312').encoding).toBe('gbk');
  });

  it('decodes windows-1252 by the WHATWG table, smart quotes included (Node decodes it as latin1)', () => {
    expect(decodeHtml(bytes([0x93], 'hi', [0x94, 0x92, 0x80, 0x9f, 0x81]), 'text/html; charset=iso-8859-1').text).toBe('“hi”’€Ÿ\u0081');
  });

  it('wins over a <meta> declaration', () => {
    const body = bytes('<meta charset="shift_jis"><p>', NI_HAO_GBK);
    expect(decodeHtml(body, 'text/html; charset=gbk')).toEqual({
      text: '<meta charset="shift_jis"><p>你好',
      encoding: 'gbk',
      source: 'header',
    });
  });

  it('skips an unknown label and goes on to the meta prescan', () => {
    const body = bytes('<meta charset="gbk"><p>', NI_HAO_GBK);
    expect(sniffCharset(body, 'text/html; charset=bogus-thing')).toEqual({ encoding: 'gbk', source: 'meta' });
    expect(sniffCharset(body, 'text/html; charset=')).toEqual({ encoding: 'gbk', source: 'meta' });
  });
});

describe('sniffCharset: <meta> prescan', () => {
  it('decodes a GBK page declared by <meta charset>', () => {
    const body = bytes(
      '<!doctype html><html><head><meta charset="gbk"><title>',
      NI_HAO_GBK,
      '</title></head><body>',
      ZHONG_WEN_GBK,
      '</body></html>',
    );
    const decoded = decodeHtml(body, 'text/html');
    expect(decoded).toMatchObject({ encoding: 'gbk', source: 'meta' });
    expect(decoded.text).toBe('<!doctype html><html><head><meta charset="gbk"><title>你好</title></head><body>中文</body></html>');
  });

  it('decodes a Shift_JIS page declared by http-equiv Content-Type', () => {
    const head = '<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"></head><body>';
    const decoded = decodeHtml(bytes(head, A_SJIS, NIHON_SJIS, '</body>'), null);
    expect(decoded).toMatchObject({ encoding: 'shift_jis', source: 'meta' });
    expect(decoded.text).toBe(`${head}あ日本</body>`);
  });

  it('takes attributes in any order and case, quoted or not', () => {
    const sniff = (head: string) => sniffCharset(bytes(head, NI_HAO_GBK), null);
    expect(sniff("<META CONTENT='text/html; CHARSET=gbk' HTTP-EQUIV='content-type'>")).toEqual({ encoding: 'gbk', source: 'meta' });
    expect(sniff('<meta content=text/html;charset=gbk http-equiv=Content-Type>')).toEqual({ encoding: 'gbk', source: 'meta' });
    expect(sniff('<meta charset=GBK>')).toEqual({ encoding: 'gbk', source: 'meta' });
    expect(sniff('<Meta  name="x"  CharSet = "gb2312" />')).toEqual({ encoding: 'gbk', source: 'meta' });
  });

  it('needs http-equiv for a charset given in content', () => {
    expect(sniffCharset(bytes('<meta content="text/html; charset=gbk">', NI_HAO_GBK), null)).toEqual({
      encoding: 'windows-1252',
      source: 'fallback',
    });
  });

  it('ignores a <meta> that starts beyond the first 1024 bytes', () => {
    const padding = `<!doctype html><title>t</title>${' '.repeat(1024)}`;
    expect(sniffCharset(bytes(padding, '<meta charset="gbk">', NI_HAO_GBK), null)).toEqual({
      encoding: 'windows-1252',
      source: 'fallback',
    });
    // The same page with the meta inside the window is read, so the limit is what made the difference.
    expect(sniffCharset(bytes('<meta charset="gbk">', padding, NI_HAO_GBK), null)).toEqual({ encoding: 'gbk', source: 'meta' });
  });

  it('ignores a <meta> cut by the 1024-byte limit', () => {
    const padding = ' '.repeat(1024 - '<meta charset="gb'.length);
    expect(sniffCharset(bytes(padding, '<meta charset="gbk">', NI_HAO_GBK), null).source).toBe('fallback');
  });

  it('ignores a <meta> inside a comment or an attribute value, but not after the comment', () => {
    expect(sniffCharset(bytes('<!-- <meta charset="gbk"> -->', NI_HAO_GBK), null).source).toBe('fallback');
    // A '>' earlier in the comment does not end it.
    expect(sniffCharset(bytes('<!-- a > b <meta charset="gbk"> -->', NI_HAO_GBK), null).source).toBe('fallback');
    expect(sniffCharset(bytes('<div title="<meta charset=gbk>">', NI_HAO_GBK), null).source).toBe('fallback');
    expect(sniffCharset(bytes('<!-- <meta charset="big5"> --><meta charset="gbk">', NI_HAO_GBK), null)).toEqual({
      encoding: 'gbk',
      source: 'meta',
    });
    // '<!-->' is a whole comment, so the meta after it counts.
    expect(sniffCharset(bytes('<!--><meta charset="gbk">', NI_HAO_GBK), null)).toEqual({ encoding: 'gbk', source: 'meta' });
  });

  it('skips a meta with an unknown label and takes a later one', () => {
    expect(sniffCharset(bytes('<meta charset="bogus-thing"><meta charset="gbk">', NI_HAO_GBK), null)).toEqual({
      encoding: 'gbk',
      source: 'meta',
    });
    expect(sniffCharset(bytes('<meta charset="bogus-thing">', NI_HAO_GBK), null).source).toBe('fallback');
  });

  it('reads a meta-declared UTF-16 as UTF-8 and x-user-defined as windows-1252', () => {
    expect(sniffCharset(bytes('<meta charset="utf-16">'), null)).toEqual({ encoding: 'utf-8', source: 'meta' });
    expect(sniffCharset(bytes('<meta charset="UTF-16BE">'), null)).toEqual({ encoding: 'utf-8', source: 'meta' });
    expect(sniffCharset(bytes('<meta charset="x-user-defined">'), null)).toEqual({ encoding: 'windows-1252', source: 'meta' });
  });
});

describe('sniffCharset: no declaration', () => {
  it('takes valid UTF-8 as UTF-8', () => {
    const body = bytes('<p>caf', [0xc3, 0xa9], ' ', [0xe4, 0xbd, 0xa0, 0xe5, 0xa5, 0xbd], '</p>');
    expect(decodeHtml(body, 'text/html')).toEqual({ text: '<p>café 你好</p>', encoding: 'utf-8', source: 'utf-8' });
    expect(sniffCharset(bytes('<p>plain ascii</p>'), null)).toEqual({ encoding: 'utf-8', source: 'utf-8' });
  });

  it('falls back to windows-1252 when the bytes are not UTF-8', () => {
    expect(decodeHtml(bytes('<p>caf', [0xe9], ' ', [0x80], '</p>'), 'text/html')).toEqual({
      text: '<p>café €</p>',
      encoding: 'windows-1252',
      source: 'fallback',
    });
  });

  it('never throws, whatever the declared encoding makes of the bytes', () => {
    expect(() => decodeHtml(bytes([0xff, 0xfe, 0x41]), null)).not.toThrow();
    expect(decodeHtml(bytes([0x80, 0xff]), 'text/html; charset=gbk').encoding).toBe('gbk');
    expect(decodeHtml(new Uint8Array(0), null)).toEqual({ text: '', encoding: 'utf-8', source: 'utf-8' });
  });
});
