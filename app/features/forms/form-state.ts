import { useEffect, useRef, useState } from "react";
import type { z } from "zod";
import { parseWith, type FieldErrors } from "../../../contract/field-errors.js";

/** What an action answers when it does not redirect: a message, and errors per field. */
export interface ActionResult {
  ok: boolean;
  message?: string;
  errors?: FieldErrors;
}

/** A form's schema, loaded when the form is first used (zod stays out of every page's first load). */
export type SchemaLoader = () => Promise<z.ZodType>;

/**
 * Checks a form in the browser with the same schema the server uses, before it is sent; with
 * JavaScript off the server's answer shows the same messages. Zod and the schema are fetched when
 * the form is first touched (`form`'s focus, pointer and input handlers: a field focused before
 * the page hydrated loads them at the first keystroke): a page that is only read never
 * loads them, and a form sent before they arrive is checked by the server, in the same words.
 */
export function useClientValidation(
  loadSchema: SchemaLoader,
  serverErrors: FieldErrors | undefined,
) {
  const [clientErrors, setClientErrors] = useState<FieldErrors | undefined>();
  // The server's errors as they were when the form was sent again: they speak of what was sent
  // before, so they stay hidden until the new answer (a new object) comes.
  const [sentOver, setSentOver] = useState<FieldErrors | undefined>();
  const schema = useRef<z.ZodType | undefined>(undefined);
  const loading = useRef(false);
  const prepare = () => {
    if (loading.current) return;
    loading.current = true;
    // (contract/zod.ts sets zod's browser mode, no eval probe, before any schema is built.)
    void loadSchema().then(
      (loaded) => {
        schema.current = loaded;
      },
      () => {
        // Offline or a new deploy: the server checks the form instead, and a later touch retries.
        loading.current = false;
      },
    );
  };
  const onSubmit = (event: { currentTarget: HTMLFormElement; preventDefault(): void }) => {
    const values = Object.fromEntries(new FormData(event.currentTarget).entries());
    const result = schema.current ? parseWith(schema.current, values) : undefined;
    if (result && !result.ok) {
      event.preventDefault();
      setClientErrors(result.errors);
    } else {
      setClientErrors(undefined);
      setSentOver(serverErrors);
    }
  };
  const current =
    serverErrors !== undefined && serverErrors === sentOver ? undefined : serverErrors;
  return {
    errors: clientErrors ?? current ?? {},
    onSubmit,
    /** For the form element: checks on submit, loads the schema when the form is first touched. */
    form: { onSubmit, onFocus: prepare, onPointerDown: prepare, onInput: prepare },
  };
}

/**
 * Lets one submit of a form through until `busy` (its navigation) ends: a quick second click can
 * land before the disabled button has rendered.
 */
export function useSingleSubmit(busy: boolean) {
  const sending = useRef(false);
  useEffect(() => {
    if (!busy) sending.current = false;
  }, [busy]);
  return {
    pending: () => sending.current,
    start: () => {
      sending.current = true;
    },
  };
}

/** An object URL showing a chosen file, released when the file changes or the form goes. */
export function useFilePreview(file: File | undefined) {
  const [url, setUrl] = useState<string | undefined>();
  useEffect(() => {
    if (!file) {
      setUrl(undefined);
      return;
    }
    const made = URL.createObjectURL(file);
    setUrl(made);
    return () => {
      URL.revokeObjectURL(made);
    };
  }, [file]);
  return url;
}
