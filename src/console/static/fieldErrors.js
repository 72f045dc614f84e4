// One error per field for the create and edit forms: the refusal of the last submit (or of the
// live preview) is kept under the field it belongs to, replaced by the next one for that field,
// and dropped as soon as the field changes. A refusal that belongs to no field is the form's.
import { useCallback, useState } from './html.js';
import { fieldOf } from './problems.js';
import { changedTimingKeys } from './timingFields.js';

/** `{errors, formError, refused(error, kind), clear(...keys), timingChanged(before, after), onPreview}`. */
export function useFieldErrors(kindOf) {
  const [submitted, setSubmitted] = useState({});
  const [formError, setFormError] = useState(null);
  const [preview, setPreview] = useState(null);

  const refused = (error, kind) => {
    const field = fieldOf(error, kind);
    if (field === null) setFormError(error);
    else setSubmitted((e) => ({ ...e, [field]: error }));
  };
  const clear = (...keys) => {
    setSubmitted((e) => {
      const next = { ...e };
      for (const k of keys) delete next[k];
      return next;
    });
    setFormError(null);
  };
  const reset = () => {
    setSubmitted({});
    setFormError(null);
  };
  const timingChanged = (before, after) => {
    clear(...changedTimingKeys(before, after));
    setPreview(null);
  };
  const onPreview = useCallback((error) => setPreview(error), []);
  const previewField = preview ? fieldOf(preview, kindOf()) : null;
  const errors = previewField && submitted[previewField] === undefined ? { ...submitted, [previewField]: preview } : submitted;
  return { errors, formError, refused, clear, reset, timingChanged, onPreview };
}
