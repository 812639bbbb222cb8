//! `import`: modules by name, from `sys.modules` or made by the native module the embedder
//! registered under that name ([`Vm::register_module`]), and module objects themselves.
//! Mirrors the part of `Python/import.c` that apy needs: no files are searched yet.

use std::rc::Rc;

use super::dict::StrKeys;
use super::object::{Object, ObjectKind};
use super::value::{PyDict, Value};
use super::{PyResult, Vm};

impl Vm {
    /// `import name`: the module from `sys.modules`, else made now by its native module
    /// ("No module named 'x'" when there is none).
    pub fn import_module(&mut self, name: &str) -> PyResult<Value> {
        if let Some(m) = self.modules.get(name) {
            return Ok(m.clone());
        }
        let Some(&make) = self.native_modules.get(name) else {
            return Err(self.new_exc(
                &self.types.module_not_found_error.clone(),
                format!("No module named '{name}'"),
            ));
        };
        let module = make(self);
        self.modules.insert(name.to_string(), module.clone());
        Ok(module)
    }

    /// A new module object with the given attributes.
    pub fn new_module(&mut self, name: &str, attrs: Vec<(&str, Value)>) -> Value {
        let dict = Rc::new(PyDict {
            table: Default::default(),
        });
        dict.table
            .borrow_mut()
            .set_str(self.names.name.clone(), Value::str(name));
        for (k, v) in attrs {
            let key = self.intern(k);
            dict.table.borrow_mut().set_str(key, v);
        }
        Value::object(Object::new(
            self.types.module.clone(),
            ObjectKind::Module {
                name: name.into(),
                dict,
            },
        ))
    }
}
