// Small helpers the forms share for their own fields (title, instruction, Session): the `aria-*`
// that tie a field to its error.

/** `{invalid(error, id)}`: `aria-invalid` and `aria-describedby` (`<id>-error`) while `error` is set. */
export const createFieldIds = () => ({
  invalid: (error, id) =>
    error ? { 'aria-invalid': 'true', 'aria-describedby': `${id}-error` } : { 'aria-invalid': undefined, 'aria-describedby': undefined },
});
