"""A Word package opened within limits: the ZIP and its XML checked before python-docx parses anything.

What a `.docx` may hold, each checked before the next, each refusal a `FormatError` that names the
limit (the sizes are what one request can read and write within a Lambda's memory and time):

- a ZIP archive: an OLE compound file is told apart (Word's password-protected documents are
  encrypted into one, and so are Word 97–2003 `.doc` files), and so is anything else;
- at most `MAX_MEMBERS` members, none encrypted, each compressed by a method `zipfile` reads
  (stored, deflate, bzip2, LZMA: not deflate64, implode or others);
- declared unpacked sizes of at most `MAX_UNPACKED` bytes in all, and a member over `RATIO_FLOOR`
  bytes at most `MAX_RATIO` times its compressed size (a decompression bomb is refused from the
  archive's directory alone; `zipfile` never yields more than a member declares: it stops there and
  checks the CRC);
- each member that is XML (it starts with `<`) streamed once in chunks: no DTD (Word never writes
  one), and at most `MAX_ELEMENTS` start tags in all the XML parts, counted as the `<` that open an
  element (a count that can only be too high), so python-docx's tree (about 170 bytes an element)
  and the walk over it are bounded before they start.

Then python-docx opens the package with its own parser (entities not resolved, libxml2's depth and
text limits on: no `huge_tree`); footnotes and endnotes parts are registered as XML parts, so they are
parsed too and written back from their trees. Whatever python-docx or `zipfile` raise on a malformed
package is a `FormatError` too.
"""

from __future__ import annotations

import io
import lzma
import zipfile
import zlib
from typing import Final

import docx
from docx.document import Document
from docx.exceptions import PythonDocxError
from docx.opc.constants import CONTENT_TYPE
from docx.opc.exceptions import PackageNotFoundError
from docx.opc.part import PartFactory, XmlPart
from lxml import etree

from .base import FormatError

MAX_MEMBERS: Final = 1_000
"""The most members (parts, media, relationships) a package may hold."""
MAX_UNPACKED: Final = 64 * 1024 * 1024
"""The most bytes a package's members may hold once unpacked, as their sizes are declared."""
MAX_RATIO: Final = 200
"""How many times its compressed size a member over `RATIO_FLOOR` bytes may unpack to (Word's XML
packs 5 to 40 times; a deflate bomb about 1,000)."""
RATIO_FLOOR: Final = 1024 * 1024
"""Members up to this size unpacked may pack at any ratio (`MAX_UNPACKED` bounds them all)."""
MAX_ELEMENTS: Final = 500_000
"""The most XML elements the package's XML parts may hold in all: a 20,000-paragraph report (about
2,000,000 characters, the most a file's text may have), or some 400 pages as Word marks them up;
reading and writing one takes a few seconds each."""

_OLE: Final = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTED: Final = "EncryptedPackage".encode("utf-16-le")
_READABLE: Final = frozenset({zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA})
_METHODS: Final = {6: "implode", 9: "deflate64", 10: "PKWARE DCL implode", 93: "Zstandard", 95: "XZ", 98: "PPMd"}
_CHUNK: Final = 1024 * 1024
_DTD: Final = tuple(b"<!DOCTYPE".decode().encode(codec) for codec in ("ascii", "utf-16-le", "utf-16-be"))
_TAIL: Final = max(len(d) for d in _DTD) - 1
_BOMS: Final = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")
_ARCHIVE_ERRORS: Final = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    NotImplementedError,
    RuntimeError,
    OSError,
    EOFError,
    ValueError,
    zlib.error,
    lzma.LZMAError,
)

PartFactory.part_type_for.setdefault(CONTENT_TYPE.WML_FOOTNOTES, XmlPart)
PartFactory.part_type_for.setdefault(CONTENT_TYPE.WML_ENDNOTES, XmlPart)


def open_document(data: bytes) -> Document:
    """The Word document `data` holds, opened by python-docx once it passed every limit (see the module)."""
    if data.startswith(_OLE):
        if _ENCRYPTED in data:
            raise FormatError(
                "docx: the document is password-protected (Word encrypted it); remove the password in Word "
                "(File > Info > Protect Document) and upload it again"
            )
        raise FormatError("docx: a Word 97–2003 document (.doc) or another OLE file, not a .docx; save it as .docx")
    if not zipfile.is_zipfile(io.BytesIO(data)):
        raise FormatError("docx: not a Word document (.docx files are ZIP archives; this is not one)")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            _check_members(archive.infolist())
            if "[Content_Types].xml" not in archive.namelist() or not any(
                n.startswith("word/") for n in archive.namelist()
            ):
                raise FormatError("docx: a ZIP archive but not a Word document (no [Content_Types].xml or word/ part)")
            _check_xml(archive)
    except FormatError:
        raise
    except _ARCHIVE_ERRORS as exc:
        raise FormatError(f"docx: a damaged ZIP archive ({exc})") from exc
    try:
        return docx.Document(io.BytesIO(data))
    except etree.XMLSyntaxError as exc:
        raise FormatError(f"docx: a part is not well-formed XML: {exc}") from exc
    except ValueError as exc:
        kind = str(exc).rpartition("content type is ")[2].strip("'")
        if "is not a Word file" in str(exc):  # a .docm, a template, a spreadsheet…
            raise FormatError(f"docx: the package holds another kind of document ({kind}); save it as .docx") from exc
        raise FormatError(f"docx: not a readable Word document ({exc})") from exc
    except (etree.LxmlError, PythonDocxError, PackageNotFoundError, KeyError, IndexError, *_ARCHIVE_ERRORS) as exc:
        raise FormatError(f"docx: not a readable Word document ({exc})") from exc
    except (AttributeError, TypeError) as exc:  # python-docx meeting a part it expects and does not find
        raise FormatError(f"docx: a damaged Word package ({exc})") from exc


def release(document: Document) -> None:
    """Free the document's XML trees now. python-docx's parts and package refer to each other, a
    cycle only the garbage collector would free (after the next request built its own trees).
    Call it when no element of the trees is referenced any more: lxml moves a subtree that still is
    into a document of its own, node by node, instead of freeing it."""
    for part in document.part.package.iter_parts():
        if isinstance(part, XmlPart):
            part.element.clear()


def _check_members(members: list[zipfile.ZipInfo]) -> None:
    if len(members) > MAX_MEMBERS:
        raise FormatError(f"docx: {len(members):,} members in the archive; the most is {MAX_MEMBERS:,}")
    for info in members:
        if info.flag_bits & 0x1:
            raise FormatError(
                f"docx: the archive is password-protected ({info.filename} is encrypted); "
                "save the document again in Word without a password"
            )
        if info.compress_type not in _READABLE:
            method = _METHODS.get(info.compress_type, f"method {info.compress_type}")
            raise FormatError(
                f"docx: {info.filename} is compressed with {method}, which is not supported (Word uses deflate); "
                "save the document again in Word"
            )
        if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise FormatError(
                f"docx: {info.filename} unpacks to {info.file_size:,} bytes from {info.compress_size:,}, "
                f"more than {MAX_RATIO} times its size (a decompression bomb?); the most is {MAX_RATIO} times"
            )
    unpacked = sum(info.file_size for info in members)
    if unpacked > MAX_UNPACKED:
        raise FormatError(f"docx: {unpacked:,} bytes once unpacked; the most is {MAX_UNPACKED:,}")


def _check_xml(archive: zipfile.ZipFile) -> None:
    """Every XML member streamed once: no DTD, and `MAX_ELEMENTS` start tags at most in all."""
    elements = 0
    for info in archive.infolist():
        with archive.open(info) as member:
            chunk = member.read(_CHUNK)
            if not _is_xml(chunk):
                continue
            tail = b""
            while chunk:
                window = tail + chunk
                if any(d in window for d in _DTD):
                    raise FormatError(f"docx: {info.filename} declares a DTD, which Word never writes")
                elements += chunk.count(b"<") - chunk.count(b"</") - chunk.count(b"<?") - chunk.count(b"<!")
                if elements > MAX_ELEMENTS:
                    raise FormatError(
                        f"docx: the document's XML parts hold more than {MAX_ELEMENTS:,} elements "
                        f"({info.filename} passes the limit); the most is {MAX_ELEMENTS:,}"
                    )
                tail = window[-_TAIL:]
                chunk = member.read(_CHUNK)


def _is_xml(head: bytes) -> bool:
    """True when a member starts as an XML document (after a byte order mark and white space)."""
    for bom in _BOMS:
        head = head.removeprefix(bom)
    return head[:64].replace(b"\x00", b"").lstrip().startswith(b"<")
