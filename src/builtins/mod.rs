pub mod float_repr;
pub mod format_spec;
pub mod int_ops;
pub mod op_error;
pub mod set_table;
pub mod str_format;
pub mod str_ops;
