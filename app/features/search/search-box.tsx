import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import { Form, useLocation, useNavigate } from "react-router";
import { SEARCH_MAX } from "../../../contract/limits.js";
import { postPath } from "../../../contract/page-paths.js";

/** How long typing must pause before suggestions are asked for. */
export const SUGGEST_DELAY_MS = 200;
/**
 * Worth asking about: a word of two letters or more that is not left out (`-word`). Operators
 * alone are refused by the API, and a one-letter word finds too much to suggest anything.
 */
const WORTH_ASKING = /(?:^|[^-\p{L}\p{N}])[\p{L}\p{N}]{2}/u;

interface Suggestion {
  _id: string;
  title: string;
  category: string;
}

/** The search text of the page shown, when it is the results page. */
function currentSearch(pathname: string, search: string) {
  return pathname === "/search" ? (new URLSearchParams(search).get("q") ?? "") : "";
}

/**
 * The header's search box: a plain GET form to /search (it works without JavaScript), and with
 * JavaScript a combobox suggesting matching posts while typing (the ARIA 1.2 combobox pattern:
 * arrows move through the list, Enter opens the chosen post or searches, Escape closes the list).
 */
export function SearchBox() {
  const location = useLocation();
  const navigate = useNavigate();
  const [text, setText] = useState(() => currentSearch(location.pathname, location.search));
  const [suggestions, setSuggestions] = useState<Suggestion[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const asked = useRef<AbortController | undefined>(undefined);
  const input = useRef<HTMLInputElement>(null);
  const hydrated = useRef(false);
  const listId = useId();
  const optionId = (index: number) => `${listId}-option-${String(index)}`;

  // The box shows the search of the results page it is on (and is empty elsewhere). On
  // hydration it keeps what was typed before the script arrived: the next render would
  // otherwise put the server's value back, and Enter would search for that instead.
  useEffect(() => {
    if (!hydrated.current) {
      hydrated.current = true;
      const typed = input.current?.value;
      if (typed !== undefined) setText(typed);
      return;
    }
    setText(currentSearch(location.pathname, location.search));
    setOpen(false);
  }, [location.pathname, location.search]);

  useEffect(() => {
    const query = text.trim();
    if (!WORTH_ASKING.test(query) || query.length > SEARCH_MAX) {
      asked.current?.abort();
      setSuggestions([]);
      return;
    }
    const timer = setTimeout(() => {
      asked.current?.abort();
      const controller = new AbortController();
      asked.current = controller;
      fetch(`/api/search?${new URLSearchParams({ q: query }).toString()}`, {
        signal: controller.signal,
      })
        .then(async (reply) => {
          // A search with nothing to look for yet ("-", a quote) or over the limit: no list.
          const found = reply.ok ? ((await reply.json()) as { posts: Suggestion[] }).posts : [];
          if (controller.signal.aborted) return;
          setSuggestions(found);
          setActive(-1);
        })
        .catch(() => {
          // Aborted by newer typing, or offline: the form still searches on Enter.
        });
    }, SUGGEST_DELAY_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [text]);

  useEffect(() => () => asked.current?.abort(), []);

  const expanded = open && suggestions.length > 0;
  const choose = (suggestion: Suggestion) => {
    setOpen(false);
    void navigate(postPath(suggestion._id));
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    switch (event.key) {
      case "ArrowDown":
      case "ArrowUp": {
        if (suggestions.length === 0) return;
        event.preventDefault();
        const step = event.key === "ArrowDown" ? 1 : -1;
        if (!expanded) {
          setOpen(true);
          setActive(step === 1 ? 0 : suggestions.length - 1);
          return;
        }
        setActive((index) => {
          const next = index + step;
          if (next < -1) return suggestions.length - 1;
          return next >= suggestions.length ? -1 : next;
        });
        return;
      }
      case "Enter": {
        const chosen = expanded ? suggestions[active] : undefined;
        if (!chosen) return; // the form searches
        event.preventDefault();
        choose(chosen);
        return;
      }
      case "Escape":
        if (expanded) {
          event.preventDefault();
          setOpen(false);
          setActive(-1);
        } else if (text !== "") {
          event.preventDefault();
          setText("");
        }
        return;
    }
  };

  return (
    <Form method="get" action="/search" role="search" className="site-search">
      <label htmlFor={`${listId}-input`} className="visually-hidden">
        Search posts
      </label>
      <input
        ref={input}
        id={`${listId}-input`}
        type="search"
        name="q"
        placeholder="Search posts"
        autoComplete="off"
        maxLength={SEARCH_MAX}
        value={text}
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={expanded}
        aria-controls={listId}
        aria-activedescendant={expanded && active >= 0 ? optionId(active) : undefined}
        onChange={(event) => {
          setText(event.target.value);
          setOpen(true);
        }}
        onKeyDown={onKeyDown}
        onFocus={() => {
          setOpen(true);
        }}
        onBlur={() => {
          setOpen(false);
          setActive(-1);
        }}
      />
      <ul id={listId} role="listbox" aria-label="Suggested posts" hidden={!expanded}>
        {suggestions.map((suggestion, index) => (
          <li
            key={suggestion._id}
            id={optionId(index)}
            role="option"
            aria-selected={index === active}
            // Chosen before the input's blur closes the list.
            onMouseDown={(event) => {
              event.preventDefault();
              choose(suggestion);
            }}
          >
            <span className="site-search-title">{suggestion.title}</span>
            <span className="site-search-category">{suggestion.category}</span>
          </li>
        ))}
      </ul>
    </Form>
  );
}
