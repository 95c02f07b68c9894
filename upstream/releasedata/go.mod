module kschedconf/releasedata

go 1.26.0
