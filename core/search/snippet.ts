import { stemOf, WORD_CHARACTER, wordMatcher, type SearchTerms } from "./search-text.js";

/** A piece of a snippet: plain text, marked when it is a word the search matched. */
export interface SnippetSegment {
  text: string;
  match: boolean;
}

/** About the length of an excerpt (EXCERPT_MAX), so a result reads like a card. */
export const SNIPPET_LENGTH = 200;
/** How much text a snippet shows before its first match. */
const LEAD = 50;
/** Matches looked at when choosing the window: enough for any page, a bound for the longest body. */
const MAX_MATCHES = 200;

/**
 * The words of a text, where they start and end (UTF-16 offsets), as the index reads them: runs of
 * letters, digits and marks (unicode61). Kept as two lists of numbers, and a word's lowercased
 * text made only when asked: a page of results reads every word of six bodies, and an object and
 * two strings a word were most of what a search allocated.
 */
class Words {
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  private readonly lowered = new Map<number, string>();

  constructor(readonly text: string) {
    let start = -1;
    const close = (at: number) => {
      if (start < 0) return;
      this.starts.push(start);
      this.ends.push(at);
      start = -1;
    };
    for (let at = 0; at < text.length;) {
      const code = text.charCodeAt(at);
      if (code < 0x80) {
        if (isAsciiWordCode(code)) {
          if (start < 0) start = at;
        } else {
          close(at);
        }
        at += 1;
        continue;
      }
      // Past ASCII, the run of word characters that starts here, if one does, by the index's rule.
      WORD_RUN.lastIndex = at;
      if (WORD_RUN.test(text)) {
        if (start < 0) start = at;
        at = WORD_RUN.lastIndex;
      } else {
        close(at);
        at += (text.codePointAt(at) ?? 0) > 0xffff ? 2 : 1;
      }
    }
    close(text.length);
  }

  get length() {
    return this.starts.length;
  }

  /** The lowercased word at `index`. */
  word(index: number) {
    let word = this.lowered.get(index);
    if (word === undefined) {
      word = this.text.slice(this.starts[index], this.ends[index]).toLowerCase();
      this.lowered.set(index, word);
    }
    return word;
  }

  /** The first letter of the lowercased word at `index`, without lowercasing the whole word. */
  initial(index: number) {
    const code = this.text.charCodeAt(this.starts[index] ?? 0);
    if (code < 0x80) return String.fromCharCode(code >= 0x41 && code <= 0x5a ? code + 0x20 : code);
    return this.word(index)[0] ?? "";
  }
}

/** A run of word characters starting just where it is asked to (sticky). */
const WORD_RUN = new RegExp(`${WORD_CHARACTER}+`, "uy");

/** ASCII letters and digits: the word characters of most text, told apart without a pattern. */
const isAsciiWordCode = (code: number) =>
  (code >= 0x61 && code <= 0x7a) ||
  (code >= 0x41 && code <= 0x5a) ||
  (code >= 0x30 && code <= 0x39);

/**
 * The indexes of the words a search matched: its words (stem or prefix) and each run of words
 * that reads as one of its phrases. Words are stemmed only when their first letter could match.
 */
function matchedWords(words: Words, terms: SearchTerms) {
  const initials = new Set([...terms.words, ...terms.phrases.flat()].map((word) => word[0]));
  const stemAt = (index: number) => stemOf(words.word(index));
  const matchesWord = wordMatcher(terms);
  const phrases = terms.phrases.map((phrase) => phrase.map(stemOf));
  const marked = new Set<number>();
  for (let index = 0; index < words.length && marked.size < MAX_MATCHES; index++) {
    if (!initials.has(words.initial(index))) continue;
    const stem = stemAt(index);
    if (matchesWord(words.word(index), stem)) {
      marked.add(index);
    }
    for (const phrase of phrases) {
      if (phrase[0] !== stem) continue;
      const fits = phrase.every((part, offset) => {
        const at = index + offset;
        return at < words.length && stemAt(at) === part;
      });
      if (fits) for (let offset = 0; offset < phrase.length; offset++) marked.add(index + offset);
    }
  }
  return [...marked].sort((a, b) => a - b);
}

/** The start of the window holding the most matches (the earliest such), in characters. */
function bestStart(words: Words, marked: number[]) {
  let best = 0;
  let bestCount = 0;
  for (let i = 0; i < marked.length; i++) {
    const first = words.starts[marked[i] ?? 0] ?? 0;
    let count = 0;
    for (let j = i; j < marked.length; j++) {
      if ((words.ends[marked[j] ?? 0] ?? 0) - first > SNIPPET_LENGTH - LEAD) break;
      count++;
    }
    if (count > bestCount) {
      best = first;
      bestCount = count;
    }
  }
  return best;
}

/**
 * The plain-text excerpt of `text` around its best match, cut at words, with the matched words as
 * segments of their own; the start of the text, unmarked, when only the title, category or
 * author matched.
 */
export function snippetOf(text: string, terms: SearchTerms): SnippetSegment[] {
  const words = new Words(text);
  const marked = matchedWords(words, terms);
  const { starts, ends } = words;
  let from = 0;
  if (text.length > SNIPPET_LENGTH && marked.length > 0) {
    const first = bestStart(words, marked);
    // Start at a word a little before the match, so it is read in its sentence.
    const lead = starts.find((start) => start >= first - LEAD);
    from = Math.min(lead ?? 0, first);
  }
  let to = Math.min(text.length, from + SNIPPET_LENGTH);
  if (to < text.length) {
    const last = ends.findLastIndex((end, index) => end <= to && (starts[index] ?? 0) >= from);
    const lastEnd = ends[last];
    if (lastEnd !== undefined && lastEnd > from) to = lastEnd;
  }
  const segments: SnippetSegment[] = [];
  const push = (piece: string, match: boolean) => {
    if (piece === "") return;
    const previous = segments.at(-1);
    if (previous && !previous.match && !match) previous.text += piece;
    else segments.push({ text: piece, match });
  };
  if (from > 0) push("…", false);
  let at = from;
  for (const index of marked) {
    const start = starts[index] ?? 0;
    const end = ends[index] ?? 0;
    if (start < from || end > to) continue;
    push(text.slice(at, start), false);
    push(text.slice(start, end), true);
    at = end;
  }
  push(text.slice(at, to), false);
  if (to < text.length) push("…", false);
  return segments;
}
