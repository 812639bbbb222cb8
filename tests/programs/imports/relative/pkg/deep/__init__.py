from .. import NAME as PARENT_NAME
