/**
 * The simple commands of one shell line, each as the argv the shell would pass: words split on blanks,
 * '…' taken literally, "…" with \" \\ \$ \` escapes, a backslash outside quotes escaping the next
 * character. Commands are cut at |, ||, &&, ; and &; redirections (> FILE, 2>&1, < FILE) and an
 * unquoted # comment are left out. `$(...)` and globs stay as written: a documentation example, not a shell.
 */
export function shellCommands(line: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  let dropNext = false;
  const endWord = () => {
    if (!inWord) return;
    if (dropNext) dropNext = false;
    else words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length) commands.push(words);
    words = [];
  };
  let i = 0;
  while (i < line.length) {
    const char = line[i]!;
    if (char === "'") {
      const close = line.indexOf("'", i + 1);
      if (close < 0) throw new Error(`unclosed ' in: ${line}`);
      word += line.slice(i + 1, close);
      inWord = true;
      i = close + 1;
    } else if (char === '"') {
      i += 1;
      for (;;) {
        if (i >= line.length) throw new Error(`unclosed " in: ${line}`);
        if (line[i] === '"') break;
        if (line[i] === '\\' && '"\\$`'.includes(line[i + 1] ?? '')) i += 1;
        word += line[i];
        i += 1;
      }
      inWord = true;
      i += 1;
    } else if (char === '\\') {
      word += line[i + 1] ?? '';
      inWord = true;
      i += 2;
    } else if (char === ' ' || char === '\t') {
      endWord();
      i += 1;
    } else if (char === '#' && !inWord) {
      break;
    } else if (char === '>' || char === '<') {
      // A file descriptor number written before the operator belongs to it (2>).
      if (inWord && /^\d+$/.test(word)) {
        word = '';
        inWord = false;
      }
      endWord();
      i += 1;
      if (line[i] === '>') i += 1;
      if (line[i] === '&') {
        // 2>&1: the target is a descriptor, part of the operator.
        i += 1;
        while (/\d/.test(line[i] ?? '')) i += 1;
      } else {
        dropNext = true;
      }
    } else if (char === '|' || char === '&' || char === ';') {
      endCommand();
      i += line[i + 1] === char ? 2 : 1;
    } else {
      word += char;
      inWord = true;
      i += 1;
    }
  }
  endCommand();
  return commands;
}
