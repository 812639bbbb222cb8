value = (1,
         2 +)
