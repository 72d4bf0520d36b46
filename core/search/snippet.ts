import { stemOf, wordMatcher, type SearchTerms } from "./search-text.js";

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

interface Token {
  start: number;
  end: number;
  word: string;
}

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/**
 * The indexes of the tokens a search matched: its words (stem or prefix) and each run of tokens
 * that reads as one of its phrases. Words are stemmed only when their first letter could match.
 */
function matchedTokens(tokens: Token[], terms: SearchTerms) {
  const initials = new Set([...terms.words, ...terms.phrases.flat()].map((word) => word[0]));
  // Stemming costs ~8 µs a word; a text says the same words again and again.
  const stems = new Map<string, string>();
  const stemAt = (index: number) => {
    const word = tokens[index]?.word ?? "";
    let stem = stems.get(word);
    if (stem === undefined) {
      stem = stemOf(word);
      stems.set(word, stem);
    }
    return stem;
  };
  const matchesWord = wordMatcher(terms);
  const phrases = terms.phrases.map((phrase) => phrase.map(stemOf));
  const marked = new Set<number>();
  for (let index = 0; index < tokens.length && marked.size < MAX_MATCHES; index++) {
    const word = tokens[index]?.word ?? "";
    if (!initials.has(word[0])) continue;
    const stem = stemAt(index);
    if (matchesWord(word, stem)) {
      marked.add(index);
    }
    for (const phrase of phrases) {
      if (phrase[0] !== stem) continue;
      const fits = phrase.every((part, offset) => {
        const at = index + offset;
        return at < tokens.length && stemAt(at) === part;
      });
      if (fits) for (let offset = 0; offset < phrase.length; offset++) marked.add(index + offset);
    }
  }
  return [...marked].sort((a, b) => a - b);
}

/** The start of the window holding the most matches (the earliest such), in characters. */
function bestStart(tokens: Token[], marked: number[]) {
  let best = 0;
  let bestCount = 0;
  for (let i = 0; i < marked.length; i++) {
    const first = tokens[marked[i] ?? 0]?.start ?? 0;
    let count = 0;
    for (let j = i; j < marked.length; j++) {
      if ((tokens[marked[j] ?? 0]?.end ?? 0) - first > SNIPPET_LENGTH - LEAD) break;
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
  const tokens: Token[] = [];
  for (const match of text.matchAll(WORD)) {
    tokens.push({
      start: match.index,
      end: match.index + match[0].length,
      word: match[0].toLowerCase(),
    });
  }
  const marked = matchedTokens(tokens, terms);
  let from = 0;
  if (text.length > SNIPPET_LENGTH && marked.length > 0) {
    const first = bestStart(tokens, marked);
    // Start at a word a little before the match, so it is read in its sentence.
    const lead = tokens.find((token) => token.start >= first - LEAD);
    from = Math.min(lead?.start ?? 0, first);
  }
  let to = Math.min(text.length, from + SNIPPET_LENGTH);
  if (to < text.length) {
    const last = tokens.findLast((token) => token.end <= to && token.start >= from);
    if (last && last.end > from) to = last.end;
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
    const token = tokens[index];
    if (!token || token.start < from || token.end > to) continue;
    push(text.slice(at, token.start), false);
    push(text.slice(token.start, token.end), true);
    at = token.end;
  }
  push(text.slice(at, to), false);
  if (to < text.length) push("…", false);
  return segments;
}
