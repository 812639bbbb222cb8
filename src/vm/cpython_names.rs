//! Names CPython 3.13 has that apy may lack: the top-level modules of its standard library
//! and its built-in names. A program that reaches for one that apy does not provide is told
//! so in CPython's words followed by [`OUTSIDE_THE_SUBSET`], rather than as if the name did
//! not exist in Python at all (and is never offered a "Did you mean" for it).

/// What apy adds to CPython's message for a name CPython has and apy does not.
pub const OUTSIDE_THE_SUBSET: &str =
    "(apy does not provide it yet: see the subset chapter of apy's book)";

/// The top-level modules of CPython 3.13's standard library (`sys.stdlib_module_names`,
/// without the private ones): a program that imports one apy lacks is told so.
const CPYTHON_STDLIB: &[&str] = &[
    "abc",
    "antigravity",
    "argparse",
    "array",
    "ast",
    "asyncio",
    "atexit",
    "base64",
    "bdb",
    "binascii",
    "bisect",
    "builtins",
    "bz2",
    "cProfile",
    "calendar",
    "cmath",
    "cmd",
    "code",
    "codecs",
    "codeop",
    "collections",
    "colorsys",
    "compileall",
    "concurrent",
    "configparser",
    "contextlib",
    "contextvars",
    "copy",
    "copyreg",
    "csv",
    "ctypes",
    "curses",
    "dataclasses",
    "datetime",
    "dbm",
    "decimal",
    "difflib",
    "dis",
    "doctest",
    "email",
    "encodings",
    "ensurepip",
    "enum",
    "errno",
    "faulthandler",
    "fcntl",
    "filecmp",
    "fileinput",
    "fnmatch",
    "fractions",
    "ftplib",
    "functools",
    "gc",
    "genericpath",
    "getopt",
    "getpass",
    "gettext",
    "glob",
    "graphlib",
    "grp",
    "gzip",
    "hashlib",
    "heapq",
    "hmac",
    "html",
    "http",
    "idlelib",
    "imaplib",
    "importlib",
    "inspect",
    "io",
    "ipaddress",
    "itertools",
    "json",
    "keyword",
    "linecache",
    "locale",
    "logging",
    "lzma",
    "mailbox",
    "marshal",
    "math",
    "mimetypes",
    "mmap",
    "modulefinder",
    "msvcrt",
    "multiprocessing",
    "netrc",
    "nt",
    "ntpath",
    "nturl2path",
    "numbers",
    "opcode",
    "operator",
    "optparse",
    "os",
    "pathlib",
    "pdb",
    "pickle",
    "pickletools",
    "pkgutil",
    "platform",
    "plistlib",
    "poplib",
    "posix",
    "posixpath",
    "pprint",
    "profile",
    "pstats",
    "pty",
    "pwd",
    "py_compile",
    "pyclbr",
    "pydoc",
    "pydoc_data",
    "pyexpat",
    "queue",
    "quopri",
    "random",
    "re",
    "readline",
    "reprlib",
    "resource",
    "rlcompleter",
    "runpy",
    "sched",
    "secrets",
    "select",
    "selectors",
    "shelve",
    "shlex",
    "shutil",
    "signal",
    "site",
    "smtplib",
    "socket",
    "socketserver",
    "sqlite3",
    "sre_compile",
    "sre_constants",
    "sre_parse",
    "ssl",
    "stat",
    "statistics",
    "string",
    "stringprep",
    "struct",
    "subprocess",
    "symtable",
    "sys",
    "sysconfig",
    "syslog",
    "tabnanny",
    "tarfile",
    "tempfile",
    "termios",
    "textwrap",
    "this",
    "threading",
    "time",
    "timeit",
    "tkinter",
    "token",
    "tokenize",
    "tomllib",
    "trace",
    "traceback",
    "tracemalloc",
    "tty",
    "turtle",
    "turtledemo",
    "types",
    "typing",
    "unicodedata",
    "unittest",
    "urllib",
    "uuid",
    "venv",
    "warnings",
    "wave",
    "weakref",
    "webbrowser",
    "winreg",
    "winsound",
    "wsgiref",
    "xml",
    "xmlrpc",
    "zipapp",
    "zipfile",
    "zipimport",
    "zlib",
    "zoneinfo",
];

/// The built-in names CPython 3.13 has and apy does not provide. A test in `interp.rs` checks
/// it against a fresh VM's built-ins and [`CPYTHON_BUILTINS`].
const BUILTINS_APY_LACKS: &[&str] = &["copyright", "credits", "license"];

/// CPython 3.13's built-in names (`dir(builtins)`, without the private ones, and without
/// `True` and `False`, which are keywords).
#[cfg(test)]
pub const CPYTHON_BUILTINS: &[&str] = &[
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "BaseException",
    "BaseExceptionGroup",
    "BlockingIOError",
    "BrokenPipeError",
    "BufferError",
    "BytesWarning",
    "ChildProcessError",
    "ConnectionAbortedError",
    "ConnectionError",
    "ConnectionRefusedError",
    "ConnectionResetError",
    "DeprecationWarning",
    "EOFError",
    "Ellipsis",
    "EncodingWarning",
    "EnvironmentError",
    "Exception",
    "ExceptionGroup",
    "FileExistsError",
    "FileNotFoundError",
    "FloatingPointError",
    "FutureWarning",
    "GeneratorExit",
    "IOError",
    "ImportError",
    "ImportWarning",
    "IndentationError",
    "IndexError",
    "InterruptedError",
    "IsADirectoryError",
    "KeyError",
    "KeyboardInterrupt",
    "LookupError",
    "MemoryError",
    "ModuleNotFoundError",
    "NameError",
    "None",
    "NotADirectoryError",
    "NotImplemented",
    "NotImplementedError",
    "OSError",
    "OverflowError",
    "PendingDeprecationWarning",
    "PermissionError",
    "ProcessLookupError",
    "PythonFinalizationError",
    "RecursionError",
    "ReferenceError",
    "ResourceWarning",
    "RuntimeError",
    "RuntimeWarning",
    "StopAsyncIteration",
    "StopIteration",
    "SyntaxError",
    "SyntaxWarning",
    "SystemError",
    "SystemExit",
    "TabError",
    "TimeoutError",
    "TypeError",
    "UnboundLocalError",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "UnicodeError",
    "UnicodeTranslateError",
    "UnicodeWarning",
    "UserWarning",
    "ValueError",
    "Warning",
    "ZeroDivisionError",
    "abs",
    "aiter",
    "all",
    "anext",
    "any",
    "ascii",
    "bin",
    "bool",
    "breakpoint",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "compile",
    "complex",
    "copyright",
    "credits",
    "delattr",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "eval",
    "exec",
    "exit",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "globals",
    "hasattr",
    "hash",
    "help",
    "hex",
    "id",
    "input",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "license",
    "list",
    "locals",
    "map",
    "max",
    "memoryview",
    "min",
    "next",
    "object",
    "oct",
    "open",
    "ord",
    "pow",
    "print",
    "property",
    "quit",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "type",
    "vars",
    "zip",
];

/// Whether `name` is a top-level module of CPython's standard library.
pub fn is_cpython_module(name: &str) -> bool {
    CPYTHON_STDLIB.binary_search(&name).is_ok()
}

/// The modules CPython 3.13 finds before `sys.path`: those built into its binary
/// (`sys.builtin_module_names`), its frozen ones (`_imp._frozen_module_names()`) and the
/// ones already in `sys.modules` when a script starts (`encodings`). A program's own file of
/// one of these names is never imported by that name; any other module of apy's library is
/// found after the program's own files, as CPython's `sys.path` finds its standard library.
const CPYTHON_BEFORE_PATH: &[&str] = &[
    "_abc",
    "_ast",
    "_codecs",
    "_collections",
    "_collections_abc",
    "_frozen_importlib",
    "_frozen_importlib_external",
    "_functools",
    "_imp",
    "_io",
    "_locale",
    "_operator",
    "_signal",
    "_sitebuiltins",
    "_sre",
    "_stat",
    "_string",
    "_suggestions",
    "_symtable",
    "_sysconfig",
    "_thread",
    "_tokenize",
    "_tracemalloc",
    "_typing",
    "_warnings",
    "_weakref",
    "abc",
    "atexit",
    "builtins",
    "codecs",
    "encodings",
    "errno",
    "faulthandler",
    "gc",
    "genericpath",
    "io",
    "itertools",
    "marshal",
    "ntpath",
    "os",
    "posix",
    "posixpath",
    "pwd",
    "runpy",
    "site",
    "stat",
    "sys",
    "time",
    "zipimport",
];

/// The types CPython defines in C in a module other than builtins, by `module.name`: their
/// `tp_name`, which CPython's messages about an object's type use, carries the module
/// (`'collections.deque' object has no attribute 'x'`), whether apy writes the type in
/// Rust or in apy. Read off CPython 3.13 (static types and immutable heap types), sorted.
const C_TYPES_OUTSIDE_BUILTINS: &[&str] = &[
    "_asyncio.Future",
    "_asyncio.Task",
    "_blake2.blake2b",
    "_blake2.blake2s",
    "_contextvars.Context",
    "_contextvars.ContextVar",
    "_contextvars.Token",
    "_csv.Dialect",
    "_csv.reader",
    "_csv.writer",
    "_hashlib.HASH",
    "_hashlib.HASHXOF",
    "_hashlib.HMAC",
    "_io.BufferedRWPair",
    "_io.BufferedRandom",
    "_io.BufferedReader",
    "_io.BufferedWriter",
    "_io.BytesIO",
    "_io.FileIO",
    "_io.IncrementalNewlineDecoder",
    "_io.StringIO",
    "_io.TextIOWrapper",
    "_io._BufferedIOBase",
    "_io._BytesIOBuffer",
    "_io._IOBase",
    "_io._RawIOBase",
    "_io._TextIOBase",
    "_pickle.Pickler",
    "_pickle.Unpickler",
    "_queue.SimpleQueue",
    "_socket.socket",
    "_struct.Struct",
    "_thread.RLock",
    "_thread._ThreadHandle",
    "_thread._local",
    "_thread.lock",
    "array.array",
    "collections.OrderedDict",
    "collections._deque_iterator",
    "collections._deque_reverse_iterator",
    "collections._tuplegetter",
    "collections.defaultdict",
    "collections.deque",
    "datetime.date",
    "datetime.datetime",
    "datetime.time",
    "datetime.timedelta",
    "datetime.timezone",
    "datetime.tzinfo",
    "decimal.Context",
    "decimal.Decimal",
    "functools._lru_cache_wrapper",
    "functools.partial",
    "grp.struct_group",
    "itertools._grouper",
    "itertools._tee",
    "itertools._tee_dataobject",
    "itertools.accumulate",
    "itertools.batched",
    "itertools.chain",
    "itertools.combinations",
    "itertools.combinations_with_replacement",
    "itertools.compress",
    "itertools.count",
    "itertools.cycle",
    "itertools.dropwhile",
    "itertools.filterfalse",
    "itertools.groupby",
    "itertools.islice",
    "itertools.pairwise",
    "itertools.permutations",
    "itertools.product",
    "itertools.repeat",
    "itertools.starmap",
    "itertools.takewhile",
    "itertools.zip_longest",
    "operator.attrgetter",
    "operator.itemgetter",
    "operator.methodcaller",
    "os.stat_result",
    "os.statvfs_result",
    "os.terminal_size",
    "os.times_result",
    "os.uname_result",
    "pickle.PickleBuffer",
    "pwd.struct_passwd",
    "re.Match",
    "re.Pattern",
    "resource.struct_rusage",
    "sqlite3.Blob",
    "sqlite3.Connection",
    "sqlite3.Cursor",
    "sqlite3.PrepareProtocol",
    "sqlite3.Row",
    "sys.flags",
    "sys.float_info",
    "sys.hash_info",
    "sys.int_info",
    "sys.thread_info",
    "sys.version_info",
    "time.struct_time",
    "types.GenericAlias",
    "types.SimpleNamespace",
    "types.UnionType",
    "typing.ParamSpec",
    "typing.ParamSpecArgs",
    "typing.ParamSpecKwargs",
    "typing.TypeAliasType",
    "typing.TypeVar",
    "typing.TypeVarTuple",
    "weakref.CallableProxyType",
    "weakref.ProxyType",
    "weakref.ReferenceType",
    "zlib.Compress",
    "zlib.Decompress",
    "zlib._ZlibDecompressor",
];

/// Whether `qualified` (`module.name`) is a type CPython defines in C
/// ([`C_TYPES_OUTSIDE_BUILTINS`]).
pub fn is_c_type_outside_builtins(qualified: &str) -> bool {
    C_TYPES_OUTSIDE_BUILTINS.binary_search(&qualified).is_ok()
}

/// CPython 3.13's top-level standard packages (modules with submodules), sorted: `import
/// logging.handlers` where apy's `logging` is a plain module is a submodule apy lacks, not
/// "'logging' is not a package".
const CPYTHON_PACKAGES: &[&str] = &[
    "asyncio",
    "collections",
    "concurrent",
    "ctypes",
    "curses",
    "dbm",
    "email",
    "encodings",
    "html",
    "http",
    "importlib",
    "json",
    "logging",
    "multiprocessing",
    "pathlib",
    "re",
    "sqlite3",
    "sysconfig",
    "tomllib",
    "unittest",
    "urllib",
    "venv",
    "wsgiref",
    "xml",
    "xmlrpc",
    "zipfile",
    "zoneinfo",
];

/// The public submodules of those packages (`pkgutil.walk_packages` over CPython 3.13's,
/// without tests), one a line, sorted, in `cpython_data/submodules.txt`.
const CPYTHON_SUBMODULES: &str = include_str!("cpython_data/submodules.txt");

/// Whether CPython's standard library has `name` as a package ([`CPYTHON_PACKAGES`]).
pub fn is_cpython_package(name: &str) -> bool {
    CPYTHON_PACKAGES.binary_search(&name).is_ok()
}

/// Whether `name` (dotted) is a public submodule of CPython's standard library.
pub fn is_cpython_submodule(name: &str) -> bool {
    CPYTHON_SUBMODULES.lines().any(|line| line == name)
}

/// Whether `name` is in CPython's `sys.stdlib_module_names`: a module of the standard
/// library, or one of the private ones CPython finds before `sys.path`.
pub fn is_stdlib_module(name: &str) -> bool {
    is_cpython_module(name) || is_found_before_path(name)
}

/// Whether CPython imports the top-level module `name` without looking at `sys.path`
/// ([`CPYTHON_BEFORE_PATH`]).
pub fn is_found_before_path(name: &str) -> bool {
    CPYTHON_BEFORE_PATH.binary_search(&name).is_ok()
}

/// Names in modules of CPython's standard library that apy's versions of them lack, as
/// (module, name), sorted: a program that reaches for one is told so, not offered a near
/// miss ("Did you mean: 'ThreadPoolExecutor'?"). Made by comparing the public names of
/// CPython 3.13's modules with apy's (`dir()` of 91 modules apy provides, less what apy
/// gives lazily), plus asyncio's event loop policies and child watchers. Consulted only
/// when a name is missing, so a name apy comes to provide may stay listed harmlessly.
/// One `module name` pair a line, in `cpython_data/names_apy_lacks.txt`.
const NAMES_APY_LACKS: &str = include_str!("cpython_data/names_apy_lacks.txt");

/// Whether `module.name` exists in CPython and not in apy ([`NAMES_APY_LACKS`], read
/// into a sorted table at the first miss asked about).
pub fn is_module_name_apy_lacks(module: &str, name: &str) -> bool {
    static TABLE: std::sync::OnceLock<Vec<(&str, &str)>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut pairs: Vec<(&str, &str)> = NAMES_APY_LACKS
            .lines()
            .filter_map(|line| line.split_once(' '))
            .collect();
        pairs.sort_unstable();
        pairs
    });
    table.binary_search(&(module, name)).is_ok()
}

/// Whether `name` is one of CPython's built-in names that apy does not provide (rather than
/// one a program deleted, or never a built-in at all).
pub fn is_builtin_apy_lacks(name: &str) -> bool {
    BUILTINS_APY_LACKS.binary_search(&name).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_are_sorted_for_binary_search() {
        assert!(CPYTHON_STDLIB.windows(2).all(|w| w[0] < w[1]));
        assert!(C_TYPES_OUTSIDE_BUILTINS.windows(2).all(|w| w[0] < w[1]));
        assert!(CPYTHON_PACKAGES.windows(2).all(|w| w[0] < w[1]));
        assert!(CPYTHON_BUILTINS.windows(2).all(|w| w[0] < w[1]));
        assert!(BUILTINS_APY_LACKS.windows(2).all(|w| w[0] < w[1]));
        assert!(CPYTHON_BEFORE_PATH.windows(2).all(|w| w[0] < w[1]));
        assert!(is_found_before_path("time") && !is_found_before_path("random"));
        assert!(is_cpython_module("socket") && !is_cpython_module("helper"));
        assert!(is_builtin_apy_lacks("license") && !is_builtin_apy_lacks("open"));
    }

    #[test]
    fn the_data_files_read_as_tables() {
        assert!(is_module_name_apy_lacks("sys", "addaudithook"));
        assert!(is_module_name_apy_lacks("os", "forkpty"));
        assert!(!is_module_name_apy_lacks("sys", "argv"));
        assert!(is_cpython_submodule("logging.handlers") && !is_cpython_submodule("logging"));
        assert!(NAMES_APY_LACKS.lines().all(|l| l.split(' ').count() == 2));
    }
}
