import { describe, expect, it } from 'vitest';
import { kindOf, perfCategories } from '../../scripts/perf-categories.js';

const sample = (tid: number, ...frames: string[]) => [`  ${tid} `, ...frames.map((f) => `\t  1000 ${f}`)].join('\n');

describe('perf-categories', () => {
  it("puts a sample with the collector or a compiler anywhere on its stack there, else by its leaf", () => {
    expect(kindOf(['Builtins_LoadIC (/usr/bin/node)', 'v8::internal::Scavenger::ScavengePage (/usr/bin/node)'])).toBe('V8 collector');
    expect(kindOf(['foo (/usr/bin/node)', 'v8::internal::compiler::GraphReducer::ReduceTop (/usr/bin/node)'])).toBe('V8 compilers');
    expect(kindOf(['do_syscall_64 ([kernel.kallsyms])', 'Builtins_CallFunction (/usr/bin/node)'])).toBe('kernel');
    expect(kindOf(['LazyCompile:*pump file.js:1 (/tmp/perf-42.map)'])).toBe('JavaScript and builtins');
    expect(kindOf(['v8::internal::LookupIterator::Next (/usr/bin/node)'])).toBe('node and V8 C++');
    expect(kindOf(['__memmove_avx_unaligned (/usr/lib/x86_64-linux-gnu/libc.so.6)'])).toBe('C library');
  });

  it('counts samples by thread, the main one being the process id', () => {
    const text = [
      sample(7, 'Builtins_LoadIC (/usr/bin/node)'),
      sample(7, 'Builtins_KeyedLoadIC (/usr/bin/node)'),
      sample(9, 'v8::internal::compiler::Scheduler::PrepareUses (/usr/bin/node)'),
    ].join('\n\n');
    expect(perfCategories(text, '7')).toEqual(new Map([['main: JavaScript and builtins', 2], ['other threads: V8 compilers', 1]]));
  });
});
