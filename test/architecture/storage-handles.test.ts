// Only storage touches SQLite: the package rule (test/architecture/import-graph.test.ts) keeps the driver's
// import inside storage, and this keeps its connections there too. No file outside src/storage declares,
// receives or reads a value of the driver's Database type (a variable, parameter, property or type alias,
// however it got the type: a storage function's return, a re-exported alias; a property read or destructured
// off a storage object, a call that returns one) or prepares a statement: other rooms use the storage objects
// and functions that the storage doors name (an archive opened for writing is a LockedArchive or a MergeOutput).
import { fileURLToPath } from 'node:url';
import { relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

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
      // Reads: `archive.db`, `archive['db']`, `const { db } = archive`, `connectionOf(archive)`.
      if (
        (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node) || ts.isCallExpression(node)) &&
        isDriverDatabase(checker.getTypeAtLocation(node))
      )
        report(node, `${ts.SyntaxKind[node.kind]} ${node.getText(source)} reads the driver's Database`);
      if (ts.isBindingElement(node) && isDriverDatabase(checker.getTypeAtLocation(node.name)))
        report(node, `BindingElement ${node.name.getText(source)} reads the driver's Database`);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe("SQLite's connections stay inside storage", () => {
  const all = findings();
  const found = all.filter((f) => !f.file.startsWith('src/storage/'));

  it('no file outside src/storage declares, receives or reads a Database, or prepares a statement', () => {
    expect(found.map((f) => `${f.file}:${f.line} ${f.what}`)).toEqual([]);
  });

  it('sees a connection wherever it is held or read: over storage, the same check finds the ones storage holds', () => {
    const inStorage = (file: string, what: RegExp) => all.some((f) => f.file === file && what.test(f.what));
    expect(inStorage('src/storage/writer/url-rows.ts', /^Parameter db /)).toBe(true);
    expect(inStorage('src/storage/reader/archive-facts.ts', /prepares|holds/)).toBe(true);
    expect(inStorage('src/storage/query/search-archive.ts', /prepares a statement/)).toBe(true);
    expect(inStorage('src/storage/crawl-state/locked-archive.ts', /^PropertyDeclaration db /)).toBe(true);
    expect(inStorage('src/storage/crawl-state/locked-archive.ts', /^PropertyAccessExpression this\.db reads/)).toBe(true);
    expect(inStorage('src/storage/crawl-state/locked-archive.ts', /^CallExpression connectionOf\(archive\) reads/)).toBe(true);
    expect(inStorage('src/storage/archive/open-crawl-archive.ts', /^BindingElement db reads/)).toBe(true);
  });
});
