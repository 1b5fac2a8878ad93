// Only storage touches SQLite: the package rule (test/architecture/import-graph.test.ts) keeps the driver's
// import inside storage, and this keeps its connections there too. No file outside src/storage declares or
// receives a value of the driver's Database type (a variable, parameter, property or type alias, however it
// got the type: a storage function's return, a re-exported alias) or prepares a statement: other rooms use
// the storage objects and functions that the storage doors name.
import { fileURLToPath } from 'node:url';
import { relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Files outside storage that still take a connection, each with its reason. An entry that matches no
 * finding fails the test, so the list only shrinks with the code.
 */
const EXCEPTIONS: Record<string, string> = {
  'src/run/prepare-archive.ts': 'prepares a crawl run on the connection its CrawlArchive opened (recrawl, retry, the frontier)',
  'src/run/start-crawl.ts': "hands the crawl's connection to the crawl-state thread it starts",
};

interface Finding {
  file: string;
  line: number;
  what: string;
}

function findings(): Finding[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    `${ROOT}tsconfig.json`,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (!config) throw new Error('tsconfig.json unreadable');
  const program = ts.createProgram({ rootNames: config.fileNames, options: { ...config.options, noEmit: true } });
  const checker = program.getTypeChecker();
  const isDriverDatabase = (type: ts.Type): boolean =>
    (type.isUnion() ? type.types : [type]).some((each) => {
      const symbol = each.aliasSymbol ?? each.getSymbol();
      return (
        symbol?.getName() === 'Database' &&
        (symbol.getDeclarations() ?? []).some((decl) => /[\\/]better-sqlite3[\\/]/.test(decl.getSourceFile().fileName))
      );
    });
  const found: Finding[] = [];
  for (const source of program.getSourceFiles()) {
    const file = relative(ROOT, source.fileName).split('\\').join('/');
    if (!file.startsWith('src/')) continue;
    const report = (node: ts.Node, what: string) =>
      found.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, what });
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'prepare')
        report(node, 'prepares a statement');
      if (
        (ts.isVariableDeclaration(node) ||
          ts.isParameter(node) ||
          ts.isPropertySignature(node) ||
          ts.isPropertyDeclaration(node) ||
          ts.isTypeAliasDeclaration(node)) &&
        isDriverDatabase(checker.getTypeAtLocation(node.name))
      )
        report(node, `${ts.SyntaxKind[node.kind]} ${node.name.getText(source)} holds the driver's Database`);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe("SQLite's connections stay inside storage", () => {
  const all = findings();
  const found = all.filter((f) => !f.file.startsWith('src/storage/'));

  it('no file outside src/storage declares or receives a Database, or prepares a statement, but the excepted ones', () => {
    expect(found.filter((f) => !(f.file in EXCEPTIONS)).map((f) => `${f.file}:${f.line} ${f.what}`)).toEqual([]);
  });

  it('every exception still takes a connection (else it goes from the list)', () => {
    expect(Object.keys(EXCEPTIONS).filter((file) => !found.some((f) => f.file === file))).toEqual([]);
  });

  it('sees a connection wherever it is held: over storage, the same check finds the ones storage holds', () => {
    const inStorage = (file: string, what: RegExp) => all.some((f) => f.file === file && what.test(f.what));
    expect(inStorage('src/storage/writer/url-rows.ts', /^Parameter db /)).toBe(true);
    expect(inStorage('src/storage/reader/archive-facts.ts', /prepares|holds/)).toBe(true);
    expect(inStorage('src/storage/query/search-archive.ts', /prepares a statement/)).toBe(true);
    expect(inStorage('src/storage/archive/open-archive.ts', /^TypeAliasDeclaration ArchiveConnection /)).toBe(true);
  });
});
