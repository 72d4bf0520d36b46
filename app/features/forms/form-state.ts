import { useEffect, useRef, useState } from "react";
import type { z } from "zod";
import { parseWith, type FieldErrors } from "../../../contract/validation.js";

/** What an action answers when it does not redirect: a message, and errors per field. */
export interface ActionResult {
  ok: boolean;
  message?: string;
  errors?: FieldErrors;
}

/**
 * Checks a form in the browser with the same schema the server uses, before it is sent; with
 * JavaScript off the server's answer shows the same messages.
 */
export function useClientValidation(schema: z.ZodType, serverErrors: FieldErrors | undefined) {
  const [clientErrors, setClientErrors] = useState<FieldErrors | undefined>();
  // The server's errors as they were when the form was sent again: they speak of what was sent
  // before, so they stay hidden until the new answer (a new object) comes.
  const [sentOver, setSentOver] = useState<FieldErrors | undefined>();
  const onSubmit = (event: { currentTarget: HTMLFormElement; preventDefault(): void }) => {
    const values = Object.fromEntries(new FormData(event.currentTarget).entries());
    const result = parseWith(schema, values);
    if (!result.ok) {
      event.preventDefault();
      setClientErrors(result.errors);
    } else {
      setClientErrors(undefined);
      setSentOver(serverErrors);
    }
  };
  const current =
    serverErrors !== undefined && serverErrors === sentOver ? undefined : serverErrors;
  return { errors: clientErrors ?? current ?? {}, onSubmit };
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
