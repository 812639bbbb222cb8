pub mod float_repr;
pub mod format_spec;
pub mod int_ops;
pub mod list_sort;
pub mod op_error;
pub mod set_table;
pub mod str_format;
pub mod str_ops;
