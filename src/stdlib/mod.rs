//! apy's library modules written in apy itself: those CPython writes in Python
//! (`Lib/contextlib.py`, …), kept readable here as `*.apy` files so a learner can open
//! them, embedded in the binary and compiled on their first `import` only, so start-up does
//! not grow. [`install`] registers them with a VM (`Vm::register_library_module`); the
//! import system does the rest. Tracebacks show a library frame as `NAME.py`, the file
//! CPython's frame would name.
//!
//! Native modules (those CPython writes in C, or that speed needs) live in `builtins/`;
//! asyncio has its own folder.

use crate::vm::Vm;

/// `library_modules! { name, file, source; … }`: the tables [`NAMES`], [`FILES`] and
/// [`TEXTS`], entry by entry.
macro_rules! library_modules {
    ($($name:literal, $file:literal, $source:literal;)*) => {
        const NAMES: &[&str] = &[$($name),*];
        const FILES: &[&str] = &[$($file),*];
        const TEXTS: &[&str] = &[$(include_str!($source)),*];
    };
}

// The library modules: name, the file tracebacks show, the source. The macro keeps the
// names (and the files) side by side in the binary, apart from the sources: making the
// table at start-up reads every name, and a name read among the sources brought the
// pages around it (64 KiB) into the process as well.
library_modules! {
    "__future__", "__future__.py", "__future__.apy";
    "abc", "abc.py", "abc.apy";
    "ast", "ast.py", "ast.apy";
    "_ast_unparse", "ast.py", "ast_unparse.apy";
    "_sysinfo", "_sysinfo.py", "_sysinfo.apy";
    "_structseq", "_structseq.py", "structseq.apy";
    "tty", "tty.py", "tty.apy";
    "_collections_abc", "_collections_abc.py", "_collections_abc.apy";
    "bisect", "bisect.py", "bisect.apy";
    "_iobase", "_iobase.py", "_iobase.apy";
    "collections.abc", "collections/abc.py", "collections_abc.apy";
    "collections", "collections/__init__.py", "collections.apy";
    "_collections_user", "_collections_user.py", "collections_user.apy";
    "copy", "copy.py", "copy.apy";
    "concurrent", "concurrent/__init__.py", "concurrent.apy";
    "concurrent.futures", "concurrent/futures/__init__.py", "concurrent_futures.apy";
    "concurrent.futures._base", "concurrent/futures/_base.py", "concurrent_futures_base.apy";
    "concurrent.futures.process", "concurrent/futures/process.py", "concurrent_futures_process.apy";
    "concurrent.futures.thread", "concurrent/futures/thread.py", "concurrent_futures_thread.apy";
    "xml", "xml/__init__.py", "xml.apy";
    "xml.etree", "xml/etree/__init__.py", "xml_etree.apy";
    "xml.etree.ElementTree", "xml/etree/ElementTree.py", "xml_etree_elementtree.apy";
    "xml.etree.ElementPath", "xml/etree/ElementPath.py", "xml_etree_elementpath.apy";
    "xml.parsers", "xml/parsers/__init__.py", "xml_parsers.apy";
    "xml.parsers.expat", "xml/parsers/expat.py", "xml_parsers_expat.apy";
    "xml.sax", "xml/sax/__init__.py", "xml_sax.apy";
    "xml.sax.saxutils", "xml/sax/saxutils.py", "xml_sax_saxutils.apy";
    "dataclasses", "dataclasses.py", "dataclasses.apy";
    "contextlib", "contextlib.py", "contextlib.apy";
    "dis", "dis.py", "dis.apy";
    "enum", "enum.py", "enum.apy";
    "functools", "functools.py", "functools.apy";
    "heapq", "heapq.py", "heapq.apy";
    "colorsys", "colorsys.py", "colorsys.apy";
    "copyreg", "copyreg.py", "copyreg.apy";
    "pickle", "pickle.py", "pickle.apy";
    "_pickle", "_pickle.py", "_pickle.apy";
    "_compat_pickle", "_compat_pickle.py", "_compat_pickle.apy";
    "_codecs", "_codecs.py", "_codecs.apy";
    "getpass", "getpass.py", "getpass.apy";
    "graphlib", "graphlib.py", "graphlib.apy";
    "importlib", "importlib/__init__.py", "importlib.apy";
    "importlib.machinery", "importlib/machinery.py", "importlib_machinery.apy";
    "importlib.util", "importlib/util.py", "importlib_util.apy";
    "inspect", "inspect.py", "inspect.apy";
    "linecache", "linecache.py", "linecache.apy";
    "locale", "locale.py", "locale.apy";
    "platform", "platform.py", "platform.apy";
    "reprlib", "reprlib.py", "reprlib.apy";
    "runpy", "<frozen runpy>", "runpy.apy";
    "sched", "sched.py", "sched.apy";
    "stat", "stat.py", "stat.apy";
    "keyword", "keyword.py", "keyword.apy";
    "operator", "operator.py", "operator.apy";
    "statistics", "statistics.py", "statistics.apy";
    "queue", "queue.py", "queue.apy";
    "signal", "signal.py", "signal.apy";
    "string", "string.py", "string.apy";
    "pprint", "pprint.py", "pprint.apy";
    "pydoc", "pydoc.py", "pydoc.apy";
    "base64", "base64.py", "base64.apy";
    "uuid", "uuid.py", "uuid.apy";
    "textwrap", "textwrap.py", "textwrap.apy";
    "timeit", "timeit.py", "timeit.apy";
    "threading", "threading.py", "threading.apy";
    "typing", "typing.py", "typing.apy";
    "time", "time.py", "time.apy";
    "os", "os.py", "os.apy";
    "shlex", "shlex.py", "shlex.apy";
    "getopt", "getopt.py", "getopt.apy";
    "fnmatch", "fnmatch.py", "fnmatch.apy";
    "secrets", "secrets.py", "secrets.apy";
    "hmac", "hmac.py", "hmac.apy";
    "codecs", "codecs.py", "codecs.apy";
    "pathlib", "pathlib/__init__.py", "pathlib.apy";
    "shutil", "shutil.py", "shutil.apy";
    "tempfile", "tempfile.py", "tempfile.apy";
    "urllib", "urllib/__init__.py", "urllib.apy";
    "urllib.parse", "urllib/parse.py", "urllib_parse.apy";
    "urllib.error", "urllib/error.py", "urllib_error.apy";
    "urllib.response", "urllib/response.py", "urllib_response.apy";
    "urllib.request", "urllib/request.py", "urllib_request.apy";
    "http", "http/__init__.py", "http.apy";
    "multiprocessing", "multiprocessing/__init__.py", "multiprocessing.apy";
    "multiprocessing.connection", "multiprocessing/connection.py", "multiprocessing_connection.apy";
    "multiprocessing.context", "multiprocessing/context.py", "multiprocessing_context.apy";
    "multiprocessing.pool", "multiprocessing/pool.py", "multiprocessing_pool.apy";
    "multiprocessing.process", "multiprocessing/process.py", "multiprocessing_process.apy";
    "multiprocessing.queues", "multiprocessing/queues.py", "multiprocessing_queues.apy";
    "multiprocessing.synchronize", "multiprocessing/synchronize.py", "multiprocessing_synchronize.apy";
    "http.client", "http/client.py", "http_client.apy";
    "http.server", "http/server.py", "http_server.apy";
    "socketserver", "socketserver.py", "socketserver.apy";
    "_socketfile", "socket.py", "socketfile.apy";
    "_strptime", "_strptime.py", "_strptime.apy";
    "datetime", "datetime.py", "datetime.apy";
    "logging", "logging/__init__.py", "logging.apy";
    "logging.handlers", "logging/handlers.py", "logging_handlers.apy";
    "traceback", "traceback.py", "traceback.apy";
    "warnings", "warnings.py", "warnings.apy";
    "json", "json/__init__.py", "json.apy";
    "argparse", "argparse.py", "argparse.apy";
    "subprocess", "subprocess.py", "subprocess.apy";
    "re", "re/__init__.py", "re.apy";
    "weakref", "weakref.py", "weakref.apy";
    "tracemalloc", "tracemalloc.py", "tracemalloc.apy";
    "csv", "csv.py", "csv.apy";
    "configparser", "configparser.py", "configparser.apy";
    "tomllib", "tomllib/__init__.py", "tomllib.apy";
    "numbers", "numbers.py", "numbers.apy";
    "fractions", "fractions.py", "fractions.apy";
    "decimal", "decimal.py", "decimal.apy";
    "glob", "glob.py", "glob.apy";
    "gzip", "gzip.py", "gzip.apy";
    "zipfile", "zipfile/__init__.py", "zipfile.apy";
    "_zipfile_streams", "zipfile/__init__.py", "zipfile_streams.apy";
    "tarfile", "tarfile.py", "tarfile.apy";
    "cmd", "cmd.py", "cmd.apy";
    "code", "code.py", "code.apy";
    "codeop", "codeop.py", "codeop.apy";
    "token", "token.py", "token.apy";
    "bdb", "bdb.py", "bdb.apy";
    "pdb", "pdb.py", "pdb.apy";
    "html", "html/__init__.py", "html.apy";
    "html.entities", "html/entities.py", "html_entities.apy";
    "html.parser", "html/parser.py", "html_parser.apy";
    "_markupbase", "_markupbase.py", "_markupbase.apy";
    "ipaddress", "ipaddress.py", "ipaddress.apy";
    "zoneinfo", "zoneinfo/__init__.py", "zoneinfo.apy";
    "mimetypes", "mimetypes.py", "mimetypes.apy";
    "fileinput", "fileinput.py", "fileinput.apy";
    "filecmp", "filecmp.py", "filecmp.apy";
    "calendar", "calendar.py", "calendar.apy";
    "difflib", "difflib.py", "difflib.apy";
    "doctest", "doctest.py", "doctest.apy";
    "unittest", "unittest/__init__.py", "unittest.apy";
    "unittest.util", "unittest/util.py", "unittest_util.apy";
    "unittest.result", "unittest/result.py", "unittest_result.apy";
    "unittest.case", "unittest/case.py", "unittest_case.apy";
    "unittest.suite", "unittest/suite.py", "unittest_suite.apy";
    "unittest.loader", "unittest/loader.py", "unittest_loader.apy";
    "unittest.runner", "unittest/runner.py", "unittest_runner.apy";
    "unittest.main", "unittest/main.py", "unittest_main.apy";
    "unittest.__main__", "unittest/__main__.py", "unittest__main.apy";
    "unittest.async_case", "unittest/async_case.py", "unittest_async_case.apy";
    "unittest.signals", "unittest/signals.py", "unittest_signals.apy";
    "unittest._log", "unittest/_log.py", "unittest__log.apy";
    "unittest.mock", "unittest/mock.py", "unittest_mock.apy";
}

/// The library half of `sqlite3`, over the native `_sqlite3` (src/builtins/sqlite.rs),
/// which the browser build has not: there `import sqlite3` says it is outside the subset.
#[cfg(not(target_arch = "wasm32"))]
const SQLITE3: &[(&str, &str, &str)] = &[
    (
        "sqlite3",
        "sqlite3/__init__.py",
        include_str!("sqlite3.apy"),
    ),
    (
        "sqlite3.dbapi2",
        "sqlite3/dbapi2.py",
        include_str!("sqlite3_dbapi2.apy"),
    ),
    (
        "sqlite3.dump",
        "sqlite3/dump.py",
        include_str!("sqlite3_dump.apy"),
    ),
];

/// Makes every library module importable in `vm`.
pub fn install(vm: &mut Vm) {
    for ((name, file), text) in NAMES.iter().zip(FILES).zip(TEXTS) {
        vm.register_library_module(name, file, text);
    }
    #[cfg(not(target_arch = "wasm32"))]
    for &(name, file, text) in SQLITE3 {
        vm.register_library_module(name, file, text);
    }
}
