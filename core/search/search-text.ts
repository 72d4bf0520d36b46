import { stemmer } from "stemmer";
import { searchMessages } from "../../contract/search.js";
import { invalid } from "../shared/errors.js";

/**
 * What a reader's search text asks for (decision 015): words (each matched by its stem, the last
 * one typed also as a prefix), "exact phrases", and words or phrases to leave out (`-word`, `-"a phrase"`). Nothing a
 * reader types is ever syntax for the database: the words are letters, digits and marks only, and
 * each engine's expression is written here from them.
 */
export interface SearchTerms {
  /** Lowercased words, each found by stem. */
  words: string[];
  /**
   * The last word typed (not quoted), found by prefix too: it may be unfinished. Earlier words are
   * finished, and a prefix of a common word costs FTS5 its whole list of posts (decision 015).
   */
  prefix?: string | undefined;
  /** Lowercased phrases, each a list of two or more words in order. */
  phrases: string[][];
  /** Words and phrases a result must not have, each a list of one or more words. */
  excluded: string[][];
}

/** What the index counts as a word: runs of the tokenizer's letters, digits and marks (unicode61). */
export const WORD_CHARACTER = String.raw`[\p{L}\p{N}\p{M}]`;
const WORD = new RegExp(`${WORD_CHARACTER}+`, "gu");

export const wordsOf = (text: string) => (text.toLowerCase().match(WORD) ?? []).slice();

/**
 * PostgreSQL's English stop words (its `english.stop`): its 'english' configuration drops them
 * from queries, so they are dropped here for both engines, or SQLite would ask for words
 * PostgreSQL ignores and the two would find different posts.
 */
const STOP_WORDS = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself " +
    "she her hers herself it its itself they them their theirs themselves what which who whom " +
    "this that these those am is are was were be been being have has had having do does did " +
    "doing a an the and but if or because as until while of at by for with about against " +
    "between into through during before after above below to from up down in out on off over " +
    "under again further then once here there when where why how all any both each few more " +
    "most other some such no nor not only own same so than too very s t can will just don " +
    "should now"
  ).split(" "),
);

const isStopWord = (word: string) => STOP_WORDS.has(word);

/** A phrase without the stop words at its ends (PostgreSQL skips them; inside, they keep places). */
function trimStopWords(words: string[]) {
  let start = 0;
  let end = words.length;
  while (start < end && isStopWord(words[start] ?? "")) start++;
  while (end > start && isStopWord(words[end - 1] ?? "")) end--;
  return words.slice(start, end);
}

/**
 * Reads search text: `"…"` is a phrase (an unclosed quote runs to the end), a `-` before a word or
 * phrase leaves it out, anything else is words. A chunk that holds several words (`foo-bar`) is
 * those words; left out, it is a phrase. A 400 when nothing is left to look for.
 */
export function parseSearchText(text: string): SearchTerms {
  const terms: SearchTerms = { words: [], phrases: [], excluded: [] };
  let at = 0;
  while (at < text.length) {
    const char = text[at] ?? "";
    if (/\s/.test(char)) {
      at++;
      continue;
    }
    const negated = char === "-" && at + 1 < text.length && !/\s/.test(text[at + 1] ?? " ");
    if (negated) at++;
    let chunk: string[];
    let quoted = false;
    if (text[at] === '"') {
      const close = text.indexOf('"', at + 1);
      const end = close === -1 ? text.length : close;
      chunk = wordsOf(text.slice(at + 1, end));
      at = end + 1;
      quoted = true;
    } else {
      let end = at;
      while (end < text.length && !/[\s"]/.test(text[end] ?? "")) end++;
      chunk = wordsOf(text.slice(at, end));
      at = end;
    }
    const kept = quoted || negated ? trimStopWords(chunk) : chunk.filter((w) => !isStopWord(w));
    if (kept.length === 0) continue;
    if (negated) terms.excluded.push(kept);
    else if (quoted && kept.length > 1) terms.phrases.push(kept);
    else terms.words.push(...kept);
    if (!negated) terms.prefix = quoted ? undefined : kept.at(-1);
  }
  terms.words = [...new Set(terms.words)];
  if (terms.words.length === 0 && terms.phrases.length === 0) {
    throw invalid(searchMessages.noWords, { q: searchMessages.noWords });
  }
  return terms;
}

/** Whether a word is matched by prefix: the last one typed, unless one letter (most of the index). */
const isPrefix = (terms: SearchTerms, word: string) => word === terms.prefix && word.length > 1;

// --- SQLite FTS5 ----------------------------------------------------------------------------------

/** An FTS5 string: double quotes around, each inner one doubled (words never hold one anyway). */
const ftsString = (words: string[]) => `"${words.join(" ").replace(/"/g, '""')}"`;

/** The FTS5 MATCH expression of the terms: every word (prefix) and phrase, none of the left-out. */
export function ftsExpression(terms: SearchTerms) {
  const wanted = [
    ...terms.words.map((word) => `${ftsString([word])}${isPrefix(terms, word) ? "*" : ""}`),
    ...terms.phrases.map(ftsString),
  ];
  const all = `(${wanted.join(" AND ")})`;
  return [all, ...terms.excluded.map(ftsString)].join(" NOT ");
}

// --- PostgreSQL ---------------------------------------------------------------------------------

/** A tsquery lexeme: single quotes around (words never hold one, but doubled all the same). */
const lexeme = (word: string) => `'${word.replace(/'/g, "''")}'`;
const tsPhrase = (words: string[]) =>
  words.length === 1 ? lexeme(words[0] ?? "") : `(${words.map(lexeme).join(" <-> ")})`;

/**
 * The text of a `to_tsquery('english', $1)`, passed as a parameter: PostgreSQL stems each lexeme
 * and keeps the places of stop words inside phrases, as FTS5's phrases do.
 */
export function tsQueryText(terms: SearchTerms) {
  return [
    ...terms.words.map((word) => `${lexeme(word)}${isPrefix(terms, word) ? ":*" : ""}`),
    ...terms.phrases.map(tsPhrase),
    ...terms.excluded.map((words) => `!${tsPhrase(words)}`),
  ].join(" & ");
}

// --- Marking matches ------------------------------------------------------------------------------

/** Stems of words already stemmed: snippets read the same words for every search. */
const stems = new Map<string, string>();
/** At most this many kept (then forgotten together). */
const STEMS_KEPT = 10_000;
/**
 * Only words this short are kept: V8 copies a piece of a string shorter than 13 characters, but
 * makes a longer one a view that holds the whole string it was cut from (here a post's text).
 */
const STEM_KEPT_LENGTH = 12;

/** The stem FTS5's porter tokenizer gives a lowercased word (the same Porter algorithm). */
export function stemOf(word: string) {
  let stem = stems.get(word);
  if (stem === undefined) {
    stem = stemmer(word);
    if (word.length <= STEM_KEPT_LENGTH) {
      if (stems.size >= STEMS_KEPT) stems.clear();
      stems.set(word, stem);
    }
  }
  return stem;
}

/** How a text's words answer a search's words: by stem, and the last one typed as a prefix too. */
export function wordMatcher(terms: SearchTerms) {
  const searched = terms.words.map((word) => ({
    word,
    stem: stemOf(word),
    prefix: isPrefix(terms, word),
  }));
  return (word: string, wordStem: string) =>
    searched.some((one) =>
      one.prefix
        ? word.startsWith(one.word) || wordStem.startsWith(one.stem)
        : wordStem === one.stem,
    );
}
