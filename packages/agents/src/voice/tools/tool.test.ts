import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolError } from '../../errors.js';
import type { RunContext } from './run-context.js';
import { tool } from './tool.js';

const weather = tool({
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: z.object({
    city: z.string().describe('City name'),
    unit: z.enum(['celsius', 'fahrenheit']).nullable(),
    days: z.number().int().min(1).max(7).optional(),
    place: z.object({
      country: z.string(),
      tags: z.array(z.string()),
    }),
  }),
  execute: ({ city }) => `sunny in ${city}`,
});

function toolError(run: () => unknown): ToolError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return error as ToolError;
  }
  throw new Error('expected a ToolError');
}

describe('tool() JSON Schema', () => {
  it('describes an object with its required fields, nested objects, enums and nullables', () => {
    expect(weather.type).toBe('function');
    expect(weather.jsonSchema).toEqual({
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name' },
        unit: { anyOf: [{ type: 'string', enum: ['celsius', 'fahrenheit'] }, { type: 'null' }] },
        days: { type: 'integer', minimum: 1, maximum: 7 },
        place: {
          type: 'object',
          properties: { country: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
          required: ['country', 'tags'],
        },
      },
      required: ['city', 'unit', 'place'],
    });
    expect(weather.jsonSchema).not.toHaveProperty('$schema');
  });

  it('describes a tool without parameters as an empty object', () => {
    const hangUp = tool({ name: 'hang_up', description: 'End the call', execute: () => 'bye' });
    expect(hangUp.jsonSchema).toEqual({ type: 'object', properties: {} });
  });

  it('leaves fields with defaults optional for the model', () => {
    const t = tool({
      name: 'book',
      description: 'Book a table',
      parameters: z.object({ people: z.number().default(2), name: z.string() }),
      execute: () => 'ok',
    });
    expect(t.jsonSchema.required).toEqual(['name']);
    expect(t.parseArguments('{"name":"Ana"}')).toEqual({ people: 2, name: 'Ana' });
  });

  it('rejects parameters that are not an object schema, or not expressible as JSON Schema', () => {
    expect(() => tool({ name: 'a', description: '', parameters: z.string(), execute: () => 1 })).toThrow(
      /parameters must be a zod object schema/,
    );
    expect(() =>
      tool({ name: 'b', description: '', parameters: z.object({ when: z.date() }), execute: () => 1 }),
    ).toThrow(/cannot be expressed as JSON Schema/);
  });

  it('accepts provider-safe names and rejects the rest', () => {
    for (const name of ['a', 'get_weather', 'lookup-order-2', 'X'.repeat(64)]) {
      expect(tool({ name, description: '', execute: () => 1 }).name).toBe(name);
    }
    for (const name of ['', 'has space', 'dotted.name', 'ünïcode', 'X'.repeat(65), 'new\nline']) {
      expect(() => tool({ name, description: '', execute: () => 1 })).toThrow(TypeError);
    }
  });
});

describe('tool() argument parsing', () => {
  it('parses valid arguments into the schema output', () => {
    expect(weather.parseArguments('{"city":"Oslo","unit":null,"place":{"country":"NO","tags":[]}}')).toEqual({
      city: 'Oslo',
      unit: null,
      place: { country: 'NO', tags: [] },
    });
  });

  it('treats empty or blank arguments as {}', () => {
    const hangUp = tool({ name: 'hang_up', description: 'End the call', execute: () => 'bye' });
    expect(hangUp.parseArguments('')).toEqual({});
    expect(hangUp.parseArguments('  \n')).toEqual({});
    // For a tool with required fields, {} then fails by naming what is missing.
    expect(toolError(() => weather.parseArguments('')).message).toMatch(/"get_weather".*city/);
  });

  it('reports malformed JSON as a ToolError naming the tool', () => {
    const error = toolError(() => weather.parseArguments('{"city": "Oslo"'));
    expect(error.message).toContain('"get_weather"');
    expect(error.message).toMatch(/not valid JSON/);
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  it('reports schema mismatches naming the tool and every bad field by path', () => {
    const error = toolError(() =>
      weather.parseArguments('{"city":42,"unit":"kelvin","days":9,"place":{"country":"NO","tags":[1]}}'),
    );
    expect(error.message).toContain('"get_weather"');
    expect(error.message).toMatch(/\bcity: .*expected string/);
    expect(error.message).toMatch(/\bunit: /);
    expect(error.message).toMatch(/\bdays: /);
    expect(error.message).toMatch(/place\.tags\.0: /);
  });

  it('names a missing required field', () => {
    const error = toolError(() => weather.parseArguments('{"unit":null,"place":{"country":"NO","tags":[]}}'));
    expect(error.message).toMatch(/\bcity: /);
  });

  it('reports JSON that is not an object', () => {
    for (const raw of ['null', '[]', '"text"', '3']) {
      expect(toolError(() => weather.parseArguments(raw)).message).toMatch(/"get_weather".*\(root\)/);
    }
  });

  it('names unknown fields when the schema is strict', () => {
    const strict = tool({
      name: 'strict_tool',
      description: '',
      parameters: z.strictObject({ a: z.string() }),
      execute: () => 1,
    });
    expect(toolError(() => strict.parseArguments('{"a":"x","b":1}')).message).toMatch(/"b"/);
  });
});

describe('tool() execution', () => {
  it('calls execute with the parsed arguments and the run context, keeping `this`', async () => {
    const ctx = { userData: { user: 'ana' } } as unknown as RunContext<{ user: string }>;
    const options = {
      name: 'greet',
      description: 'Greets',
      parameters: z.object({ name: z.string() }),
      prefix: 'Hello',
      execute(this: { prefix: string }, args: { name: string }, c: RunContext<{ user: string }>) {
        return `${this.prefix} ${args.name} from ${c.userData.user}`;
      },
    };
    const greet = tool(options);
    expect(await greet.execute(greet.parseArguments('{"name":"Bo"}'), ctx)).toBe('Hello Bo from ana');
  });
});
