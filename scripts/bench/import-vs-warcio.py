#!/usr/bin/env python3
"""What `crawlite import` stores of WARC or WACZ files, against what warcio reads in them.

    python3 scripts/bench/import-vs-warcio.py [--crawlite dist/bundle/crawlite.js] [--json] FILE [FILE...]
    python3 scripts/bench/import-vs-warcio.py --group FILE FILE ...   # the files imported together, in that order

Needs python3 with warcio (`pip install warcio`; Debian has no package). Each FILE (or the --group as one) is
imported into a fresh archive; then every capture warcio would serve (a response, resource or revisit record
with an http(s) WARC-Target-URI, a revisit only when its original is among the files) is looked for among the
archive's `captures` by URL, time to the second, status and payload SHA-256. A match must also agree on the
content type and the header fields. Printed per FILE: records in (warcio's count), captures warcio reads,
captures out (the archive's), and the differences: what warcio reads and the archive lacks, what the archive
has and warcio does not read, and matched captures whose headers differ.
"""
import argparse
import hashlib
import io
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import zipfile
from collections import Counter
from urllib.parse import urlsplit

from warcio.archiveiterator import ArchiveIterator

try:  # Debian's python3-brotli has no Decompressor.unused_data, which warcio reads
    import brotli
    import warcio.bufferedreaders as bufferedreaders

    if not hasattr(brotli.Decompressor(), 'unused_data'):
        class _Brotli:
            unused_data = b''

            def __init__(self):
                self._inner = brotli.Decompressor()

            def decompress(self, data):
                return self._inner.process(data)

        bufferedreaders.brotli_decompressor = _Brotli
        bufferedreaders.BufferedReader.DECOMPRESSORS['br'] = _Brotli
except ImportError:
    pass


def norm_url(url):
    """A URL as both sides can agree on it: scheme and host lower-case, default port and fragment gone."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return url
    host = (parts.hostname or '').lower()
    port = parts.port if parts.port not in (None, 80, 443) else None
    netloc = host + (':%d' % port if port else '')
    return '%s://%s%s%s' % (parts.scheme.lower(), netloc, parts.path or '/', ('?' + parts.query) if parts.query else '')


def ts14(date):
    return ''.join(ch for ch in (date or '') if ch.isdigit())[:14].ljust(14, '0')


def warc_streams(path):
    """The WARC streams of a file: itself, or a WACZ's archive/ members."""
    if path.endswith('.wacz'):
        with zipfile.ZipFile(path) as wacz:
            for name in sorted(wacz.namelist()):
                if name.startswith('archive/') and ('.warc' in name):
                    yield name, io.BytesIO(wacz.read(name))
    else:
        with open(path, 'rb') as stream:
            yield path, io.BytesIO(stream.read())


def headers_of(http_headers):
    grouped = {}
    for name, value in http_headers.headers:
        grouped.setdefault(name.lower(), []).append(value)
    return {name: ('\n' if name in ('set-cookie', 'location') else ', ').join(values) for name, values in grouped.items()}


def read_with_warcio(paths):
    """Records in, and the captures warcio reads: (url, ts14, status, sha256, content type, headers)."""
    records = 0
    originals = []
    revisits = []
    problems = []
    for path in paths:
        for name, stream in warc_streams(path):
            try:
                for record in ArchiveIterator(stream, arc2warc=True):
                    records += 1
                    uri = record.rec_headers.get_header('WARC-Target-URI') or ''
                    uri = uri.strip('<>')
                    kind = record.rec_type
                    if kind not in ('response', 'resource', 'revisit') or not uri.lower().startswith(('http:', 'https:')):
                        continue
                    date = record.rec_headers.get_header('WARC-Date')
                    entry = {
                        'url': norm_url(uri),
                        'ts': ts14(date),
                        'id': record.rec_headers.get_header('WARC-Record-ID'),
                        'digest': record.rec_headers.get_header('WARC-Payload-Digest'),
                        'refers_id': record.rec_headers.get_header('WARC-Refers-To'),
                        'refers_uri': (record.rec_headers.get_header('WARC-Refers-To-Target-URI') or '').strip('<>'),
                    }
                    if kind == 'resource':
                        entry.update(status=200, ctype=record.rec_headers.get_header('Content-Type'), headers=None)
                        entry['sha256'] = hashlib.sha256(record.content_stream().read()).hexdigest()
                        originals.append(entry)
                    elif kind == 'response':
                        if not record.http_headers:
                            continue
                        entry.update(status=int(record.http_headers.get_statuscode() or 0),
                                     ctype=record.http_headers.get_header('Content-Type'),
                                     headers=headers_of(record.http_headers))
                        entry['sha256'] = hashlib.sha256(record.content_stream().read()).hexdigest()
                        if record.http_headers.protocol.upper().startswith('HTTP/'):
                            originals.append(entry)
                    else:
                        own = record.http_headers
                        entry.update(own_status=int(own.get_statuscode() or 0) if own else None,
                                     headers=headers_of(own) if own else None,
                                     ctype=own.get_header('Content-Type') if own else None)
                        revisits.append(entry)
            except Exception as error:  # warcio stops reading the file here
                problems.append('%s: %s' % (name, error))
    by_id = {o['id']: o for o in originals if o['id']}
    by_digest = {}
    by_uri = {}
    for original in originals:
        by_digest.setdefault(original['digest'], original)
        by_uri.setdefault(original['url'], original)
    captures = list(originals)
    for revisit in revisits:
        original = (by_id.get(revisit['refers_id']) or by_digest.get(revisit['digest'])
                    or by_uri.get(norm_url(revisit['refers_uri'] or revisit['url'])))
        if not original:
            continue
        status = revisit['own_status'] if revisit['own_status'] and revisit['own_status'] != 304 else original['status']
        headers = revisit['headers'] if revisit['own_status'] and revisit['own_status'] != 304 else original['headers']
        ctype = (headers or {}).get('content-type', original['ctype'])
        captures.append(dict(revisit, status=status, sha256=original['sha256'], headers=headers, ctype=ctype))
    return records, captures, problems


def read_archive(db):
    connection = sqlite3.connect(db)
    rows = connection.execute('SELECT url, fetched_at, status, sha256, content_type, headers FROM captures').fetchall()
    connection.close()
    return [{'url': norm_url(url), 'ts': ts14(at), 'status': status, 'sha256': sha, 'ctype': ctype,
             'headers': json.loads(headers) if headers else {}} for url, at, status, sha, ctype, headers in rows]


def compare(paths, crawlite):
    records, expected, problems = read_with_warcio(paths)
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, 'import.sqlite')
        run = subprocess.run(['node', crawlite, 'import', *paths, '--db', db, '-q'], capture_output=True, text=True)
        got = read_archive(db) if os.path.exists(db) else []
    key = lambda c: (c['url'], c['ts'], c['status'], c['sha256'])
    have = Counter(key(c) for c in got)
    want = Counter(key(c) for c in expected)
    missing = want - have
    extra = have - want
    # Captures with the same key (one URL twice in a second) are matched on their headers as a multiset.
    header_diffs = []
    shape = lambda c: json.dumps([c['ctype'] or None, c['headers']], sort_keys=True)
    mine = {}
    for capture in got:
        mine.setdefault(key(capture), Counter())[shape(capture)] += 1
    theirs = {}
    for capture in expected:
        if capture['headers'] is not None:
            theirs.setdefault(key(capture), Counter())[shape(capture)] += 1
    for k, shapes in theirs.items():
        if k in mine and (shapes - mine[k]) and sum(mine[k].values()) >= sum(shapes.values()):
            header_diffs.append((k[0], k[1]))
    return {
        'files': paths,
        'records_in': records,
        'warcio_captures': len(expected),
        'captures_out': len(got),
        'missing': sum(missing.values()),
        'extra': sum(extra.values()),
        'header_diffs': len(header_diffs),
        'exit': run.returncode,
        'stderr': run.stderr.strip().splitlines()[-1:] if run.returncode else [],
        'warcio_problems': problems,
        'examples': {'missing': [list(k) for k in list(missing)[:3]], 'extra': [list(k) for k in list(extra)[:3]],
                     'headers': header_diffs[:3]},
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('files', nargs='+')
    parser.add_argument('--crawlite', default=os.path.join(os.path.dirname(__file__), '../../dist/bundle/crawlite.js'))
    parser.add_argument('--group', action='store_true', help='import the files together, in the order given')
    parser.add_argument('--json', action='store_true')
    args = parser.parse_args()
    results = [compare(args.files, args.crawlite)] if args.group else [compare([f], args.crawlite) for f in args.files]
    if args.json:
        json.dump(results, sys.stdout, indent=1)
        return
    print('| file | records in | warcio captures | captures out | missing | extra | headers differ |')
    print('|---|---|---|---|---|---|---|')
    for r in results:
        name = ' + '.join(os.path.basename(f) for f in r['files'])
        note = ' (exit %d: %s)' % (r['exit'], ' '.join(r['stderr'])) if r['exit'] else ''
        note += ' (warcio: %s)' % '; '.join(r['warcio_problems'])[:120] if r['warcio_problems'] else ''
        print('| %s%s | %d | %d | %d | %d | %d | %d |' % (name, note, r['records_in'], r['warcio_captures'], r['captures_out'],
                                                        r['missing'], r['extra'], r['header_diffs']))


if __name__ == '__main__':
    main()
