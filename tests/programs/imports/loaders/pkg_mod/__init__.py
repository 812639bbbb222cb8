LOADED = __loader__.name
