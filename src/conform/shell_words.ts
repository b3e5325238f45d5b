/**
 * Splits a command line the way a POSIX shell splits words, without running
 * a shell: whitespace separates words; single quotes keep everything
 * literally; double quotes keep everything but `\"`, `\\`, `\$` and `` \` ``;
 * a backslash outside quotes escapes the next character. Nothing is
 * expanded (no variables, globs or substitutions).
 *
 * @module
 */

/** Splits `line` into words; throws on an unterminated quote or a trailing backslash. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error("unterminated single quote");
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      inWord = true;
      let closed = false;
      for (i++; i < line.length; i++) {
        const d = line[i];
        if (d === '"') {
          closed = true;
          break;
        }
        if (d === "\\" && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) {
          word += line[++i];
        } else {
          word += d;
        }
      }
      if (!closed) throw new Error("unterminated double quote");
    } else if (c === "\\") {
      if (i + 1 >= line.length) throw new Error("trailing backslash");
      word += line[++i];
      inWord = true;
    } else if (c === " " || c === "\t" || c === "\n") {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}
