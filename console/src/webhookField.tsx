/**
 * A webhook or handler given as a URL (which may hold `{{ENV}}` templates) or as an environment
 * variable (`{"from_env": "NAME"}`), the two shapes the engine takes for cron triggers, one-off
 * events and action handlers.
 */
import { TextField } from './components';

export interface UrlConfInput { kind: 'url' | 'env'; text: string }

export const urlConfInput = (v: unknown): UrlConfInput =>
  (v && typeof v === 'object' && typeof (v as { from_env?: unknown }).from_env === 'string'
    ? { kind: 'env', text: (v as { from_env: string }).from_env }
    : { kind: 'url', text: typeof v === 'string' ? v : '' });

export const urlConfValue = (v: UrlConfInput): string | { from_env: string } => (v.kind === 'env' ? { from_env: v.text } : v.text);

/** `name` is the field's noun: "Webhook" → "Webhook from", "Webhook URL", "Webhook environment variable". */
export function UrlConfField({ name, value, onChange, placeholder }: { name: string; value: UrlConfInput; onChange: (v: UrlConfInput) => void; placeholder?: string }) {
  return (
    <>
      <label className="field">{name} from<select value={value.kind} onChange={(e) => onChange({ ...value, kind: e.target.value as UrlConfInput['kind'] })}><option value="url">URL</option><option value="env">environment variable</option></select></label>
      {value.kind === 'env'
        ? <TextField label={`${name} environment variable`} value={value.text} onChange={(text) => onChange({ ...value, text })} placeholder="HANDLER_URL" />
        : <TextField label={`${name} URL`} value={value.text} onChange={(text) => onChange({ ...value, text })} placeholder={placeholder} />}
    </>
  );
}
