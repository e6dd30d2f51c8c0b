//! The file a reader reads, owned by the host: the JVM's file system answers positional
//! reads, so the reader never opens a path itself.
//!
//! [`HostChunkReader`] adapts any [`HostFile`] to parquet-rs's [`ChunkReader`]: the footer
//! and each column chunk are fetched with one `read_fully` each (`get_bytes`), and the
//! streaming `get_read` reads in blocks of at most 64 KiB.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use parquet::errors::ParquetError;
use parquet::file::reader::{ChunkReader, Length};

/// A file the host reads for the reader, by position. Implementations must be usable
/// from the reader's thread (`Send + Sync`).
pub trait HostFile: Send + Sync + std::fmt::Debug {
    /// The file's length in bytes.
    fn len(&self) -> io::Result<u64>;

    /// Whether the file is empty.
    fn is_empty(&self) -> io::Result<bool> {
        Ok(self.len()? == 0)
    }

    /// Fills `buf` with the bytes at `position..position + buf.len()`; a range past the
    /// end is an error (`UnexpectedEof`).
    fn read_fully(&self, position: u64, buf: &mut [u8]) -> io::Result<()>;
}

/// A local file read with positional reads (`pread`), no shared cursor.
#[derive(Debug)]
pub struct LocalFile {
    file: File,
    path: PathBuf,
    len: u64,
}

impl LocalFile {
    /// Opens `path`.
    pub fn open(path: impl AsRef<Path>) -> io::Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = File::open(&path)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        let len = file.metadata()?.len();
        Ok(Self { file, path, len })
    }

    /// The path it was opened with.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl HostFile for LocalFile {
    fn len(&self) -> io::Result<u64> {
        Ok(self.len)
    }

    fn read_fully(&self, position: u64, buf: &mut [u8]) -> io::Result<()> {
        check_range(position, buf.len(), self.len)?;
        read_exact_at(&self.file, buf, position)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", self.path.display())))
    }
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], position: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, position)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut position: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(file, buf, position) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                position += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// A file held in memory.
#[derive(Debug, Clone)]
pub struct MemoryFile {
    bytes: Bytes,
}

impl MemoryFile {
    /// A file of these bytes.
    pub fn new(bytes: impl Into<Bytes>) -> Self {
        Self {
            bytes: bytes.into(),
        }
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }
}

impl HostFile for MemoryFile {
    fn len(&self) -> io::Result<u64> {
        Ok(self.bytes.len() as u64)
    }

    fn read_fully(&self, position: u64, buf: &mut [u8]) -> io::Result<()> {
        check_range(position, buf.len(), self.bytes.len() as u64)?;
        let start = position as usize;
        buf.copy_from_slice(&self.bytes[start..start + buf.len()]);
        Ok(())
    }
}

fn check_range(position: u64, len: usize, file_len: u64) -> io::Result<()> {
    match position.checked_add(len as u64) {
        Some(end) if end <= file_len => Ok(()),
        _ => Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("read of {len} bytes at {position} is past the end of a {file_len}-byte file"),
        )),
    }
}

/// A [`HostFile`] as parquet-rs's [`ChunkReader`].
#[derive(Debug)]
pub struct HostChunkReader<F: HostFile> {
    file: Arc<F>,
    len: u64,
}

impl<F: HostFile> HostChunkReader<F> {
    /// Adapts `file` (asks its length once).
    pub fn new(file: Arc<F>) -> io::Result<Self> {
        let len = file.len()?;
        Ok(Self { file, len })
    }
}

impl<F: HostFile> Clone for HostChunkReader<F> {
    fn clone(&self) -> Self {
        Self {
            file: Arc::clone(&self.file),
            len: self.len,
        }
    }
}

impl<F: HostFile> Length for HostChunkReader<F> {
    fn len(&self) -> u64 {
        self.len
    }
}

impl<F: HostFile + 'static> ChunkReader for HostChunkReader<F> {
    type T = HostRead<F>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        if start > self.len {
            return Err(ParquetError::EOF(format!(
                "read at {start} is past the end of a {}-byte file",
                self.len
            )));
        }
        Ok(HostRead {
            file: Arc::clone(&self.file),
            position: start,
            end: self.len,
        })
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        match start.checked_add(length as u64) {
            Some(end) if end <= self.len => {}
            _ => {
                return Err(ParquetError::EOF(format!(
                    "read of {length} bytes at {start} is past the end of a {}-byte file",
                    self.len
                )));
            }
        }
        let mut buf = vec![0; length];
        self.file
            .read_fully(start, &mut buf)
            .map_err(|e| ParquetError::External(Box::new(e)))?;
        Ok(buf.into())
    }
}

/// A streaming read of a [`HostFile`] from a position to its end.
#[derive(Debug)]
pub struct HostRead<F: HostFile> {
    file: Arc<F>,
    position: u64,
    end: u64,
}

const READ_BLOCK: u64 = 64 * 1024;

impl<F: HostFile> Read for HostRead<F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = (buf.len() as u64)
            .min(self.end - self.position)
            .min(READ_BLOCK) as usize;
        if n == 0 {
            return Ok(0);
        }
        self.file.read_fully(self.position, &mut buf[..n])?;
        self.position += n as u64;
        Ok(n)
    }
}

/// A shared file is read as the file itself.
impl<T: HostFile + ?Sized> HostFile for Arc<T> {
    fn len(&self) -> io::Result<u64> {
        (**self).len()
    }

    fn read_fully(&self, position: u64, buf: &mut [u8]) -> io::Result<()> {
        (**self).read_fully(position, buf)
    }
}
