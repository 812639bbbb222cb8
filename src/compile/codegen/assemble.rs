//! Assembly: a finished unit in, a [`Code`] out. Handler code goes last, labels become
//! offsets, every path is walked for the stack depth, `peephole` runs, and the exception
//! table is flattened from the handler stack. Mirrors CPython 3.13's `optimize_and_assemble`
//! (`Python/compile.c`), `push_cold_blocks_to_end` and `calculate_stackdepth`
//! (`Python/flowgraph.c`), `resolve_jump_offsets` and `assemble_exception_table` (`assemble.c`).

use std::collections::HashMap;
use std::rc::Rc;

use super::{Codegen, Unit, internal};
use crate::compile::bytecode::{Code, ExceptionTableEntry};
use crate::compile::error::CompileResult;
use crate::compile::peephole::{self, Listing};
use crate::syntax::ast::Span;

impl<'a> Codegen<'a> {
    /// Resolve labels, compute the stack depth and the exception table, and finish the
    /// current unit as a [`Code`].
    pub(super) fn assemble(&mut self) -> CompileResult<Rc<Code>> {
        let mut u = self
            .units
            .pop()
            .ok_or_else(|| internal("no unit", Span::default()))?;
        // Exception-handling code goes last, as CPython's `push_cold_blocks_to_end` does:
        // the normal path then falls through where it jumped over the handlers.
        let moved = move_cold_code_to_end(&mut u);
        // Labels that nothing jumps to may stay unbound.
        let labels: Vec<u32> = u
            .labels
            .iter()
            .map(|l| l.map_or(u32::MAX, |p| moved[p as usize]))
            .collect();
        let unbound = || internal("jump to an unbound label", u.loc.span);
        for instr in &mut u.instrs {
            if let Some(t) = instr.jump_target() {
                let target = labels[t as usize];
                if target == u32::MAX {
                    return Err(unbound());
                }
                *instr = instr.with_jump_target(target);
            }
        }
        if u.handlers
            .iter()
            .any(|h| labels[h.target.0 as usize] == u32::MAX)
        {
            return Err(unbound());
        }
        let (stack_size, reachable) = stack_depth(&mut u, &labels)
            .ok_or_else(|| internal("inconsistent stack depth", u.loc.span))?;
        let handler_entries: Vec<usize> = u
            .handlers
            .iter()
            .map(|h| labels[h.target.0 as usize] as usize)
            .collect();
        let listing = Listing {
            instrs: &mut u.instrs,
            locs: &mut u.locs,
            handler_at: &mut u.handler_at,
        };
        // The parameters, bound on entry (CPython counts its symbol table's `ste_varnames`).
        let nparams =
            u.argcount + u.kwonlyargcount + u.flags.varargs as u32 + u.flags.varkeywords as u32;
        let new_index = peephole::optimize(listing, reachable, &handler_entries, nparams);
        let n = u.instrs.len();
        let mut exception_table: Vec<ExceptionTableEntry> = Vec::new();
        let mut i = 0;
        while i < n {
            let Some(h) = u.handler_at[i] else {
                i += 1;
                continue;
            };
            let start = i;
            while i < n && u.handler_at[i] == Some(h) {
                i += 1;
            }
            let handler = &u.handlers[h];
            let depth = handler
                .depth
                .ok_or_else(|| internal("handler set up on no path", u.loc.span))?;
            exception_table.push(ExceptionTableEntry {
                start: start as u32,
                end: i as u32,
                target: new_index[labels[handler.target.0 as usize] as usize],
                depth,
                push_lasti: handler.lasti,
            });
        }
        let cell2arg = u
            .cellvars
            .iter()
            .map(|c| {
                let sc = &self.table.scopes[u.scope];
                sc.params.iter().position(|p| **p == **c).map(|i| i as u32)
            })
            .collect();
        Ok(Rc::new(Code {
            name: u.name,
            qualname: u.qualname,
            filename: self.filename.clone(),
            first_line: u.first_line,
            flags: u.flags,
            argcount: u.argcount,
            posonlyargcount: u.posonlyargcount,
            kwonlyargcount: u.kwonlyargcount,
            instructions: u.instrs,
            locations: u.locs,
            constants: u.consts,
            names: u.names.names,
            varnames: u.varnames.names,
            cellvars: u.cellvars,
            cell2arg,
            freevars: u.freevars,
            exception_table,
            stack_size,
            anchors: u.anchors,
            warnings: Vec::new(),
        }))
    }
}

/// Reorder the instructions of `u`: those emitted outside exception handlers first, then the
/// handlers, each group in emission order. Every cold range starts after and ends with an
/// unconditional jump, raise or return, so no fall-through crosses the move. Returns, for
/// each old position (and the end), its new one; setups are moved with their instruction.
fn move_cold_code_to_end(u: &mut Unit<'_>) -> Vec<u32> {
    let n = u.instrs.len();
    let order: Vec<usize> = (0..n)
        .filter(|&i| !u.is_cold[i])
        .chain((0..n).filter(|&i| u.is_cold[i]))
        .collect();
    let mut moved = vec![0u32; n + 1];
    for (new, &old) in order.iter().enumerate() {
        moved[old] = new as u32;
    }
    moved[n] = n as u32;
    u.instrs = order.iter().map(|&i| u.instrs[i]).collect();
    u.locs = order.iter().map(|&i| u.locs[i]).collect();
    u.handler_at = order.iter().map(|&i| u.handler_at[i]).collect();
    for setup in &mut u.setups {
        setup.at = moved[setup.at as usize];
    }
    moved
}

/// Walk every path through the code (CPython's `calculate_stackdepth`), giving each handler
/// its depth. Returns the maximum depth and which instructions some path reaches, or None if
/// two paths disagree (a compiler bug).
fn stack_depth(u: &mut Unit<'_>, labels: &[u32]) -> Option<(u32, Vec<bool>)> {
    let n = u.instrs.len();
    let mut depth_at: Vec<Option<i32>> = vec![None; n + 1];
    let mut setups_at: HashMap<u32, Vec<usize>> = HashMap::new();
    for (k, s) in u.setups.iter().enumerate() {
        setups_at.entry(s.at).or_default().push(k);
    }
    let mut max = 0i32;
    let mut work: Vec<(usize, i32)> = vec![(0, 0)];
    while let Some((start, depth)) = work.pop() {
        let mut i = start;
        let mut d = depth;
        loop {
            match depth_at.get(i).copied().flatten() {
                Some(seen) => {
                    if seen != d {
                        return None;
                    }
                    break;
                }
                None if i <= n => depth_at[i] = Some(d),
                None => break,
            }
            if i == n {
                break;
            }
            if let Some(ks) = setups_at.get(&(i as u32)) {
                for &k in ks {
                    let s = &u.setups[k];
                    let hd = d + s.adjust;
                    let handler = &mut u.handlers[s.handler];
                    handler.depth = Some(hd.max(0) as u32);
                    let target = labels[handler.target.0 as usize] as usize;
                    let entry = hd + handler.lasti as i32 + 1;
                    max = max.max(entry);
                    work.push((target, entry));
                }
            }
            let instr = u.instrs[i];
            if let Some(t) = instr.jump_target() {
                let jd = d + instr.stack_effect(true);
                if jd < 0 {
                    return None;
                }
                max = max.max(jd);
                work.push((t as usize, jd));
            }
            if instr.is_terminator() {
                break;
            }
            d += instr.stack_effect(false);
            if d < 0 {
                return None;
            }
            max = max.max(d);
            i += 1;
        }
    }
    depth_at.truncate(n);
    Some((max as u32, depth_at.iter().map(Option::is_some).collect()))
}

#[cfg(test)]
mod tests {
    use crate::compile::bytecode::Instr;
    use crate::compile::codegen::tests::{global_loads, handler_of};
    use crate::compile::first_function as function;

    #[test]
    fn handler_depth_counts_the_loop_iterator_and_with_exit() {
        let f = function(
            "def f():\n    for x in y:\n        try:\n            g()\n        except:\n            pass\n",
        );
        let g = global_loads(&f, "g")[0];
        assert_eq!(handler_of(&f, g).expect("covered").depth, 1);
        let f = function("def f():\n    with m() as v:\n        g()\n");
        let g = global_loads(&f, "g")[0];
        let row = handler_of(&f, g).expect("covered");
        assert_eq!((row.depth, row.push_lasti), (1, true));
        assert_eq!(f.instructions[row.target as usize], Instr::PushExcInfo);
        assert_eq!(
            f.instructions[row.target as usize + 1],
            Instr::WithExceptStart
        );
    }

    #[test]
    fn stack_size_is_the_deepest_point() {
        assert_eq!(function("def f():\n    return a + b * c\n").stack_size, 3);
        // f, NULL, a, b
        assert_eq!(function("def f():\n    return g(a, b)\n").stack_size, 4);
        // An exception handler entry: prev_exc + lasti + exc under a call inside it.
        let f = function("def f():\n    try:\n        pass\n    finally:\n        g(1)\n");
        assert!(f.stack_size >= 5);
    }
}
